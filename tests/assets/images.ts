import { deflateSync } from 'node:zlib';

/** Real, decodable image bytes of chosen dimensions, built in the test rather than stored as fixtures. */

export function pngChunk(type: string, data: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(Bun.hash.crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** An 8-bit greyscale PNG, all black. */
export function png(width: number, height: number): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  // One filter byte per row, then the row's pixels.
  const pixels = deflateSync(new Uint8Array((width + 1) * height));
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', header),
      pngChunk('IDAT', pixels),
      pngChunk('IEND', new Uint8Array()),
    ]),
  );
}

function jpegSegment(marker: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(4);
  head[0] = 0xff;
  head[1] = marker;
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/**
 * A baseline JPEG header: SOI, JFIF APP0, optionally an Exif APP1 with an orientation, `padding`
 * bytes of APP2 segments before the frame header (as large ICC profiles put them), SOF0 with
 * the stored dimensions, EOI.
 */
export function jpeg(width: number, height: number, options: { padding?: number; orientation?: number } = {}): Uint8Array {
  const jfif = Buffer.from([0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
  const segments = [jpegSegment(0xe0, jfif)];
  if (options.orientation !== undefined) {
    // "Exif\0\0", a big-endian TIFF header, one IFD entry: tag 274 (orientation), SHORT, count 1.
    const exif = Buffer.alloc(6 + 8 + 2 + 12 + 4);
    exif.write('Exif', 0, 'ascii');
    exif.write('MM', 6, 'ascii');
    exif.writeUInt16BE(42, 8);
    exif.writeUInt32BE(8, 10);
    exif.writeUInt16BE(1, 14);
    exif.writeUInt16BE(274, 16);
    exif.writeUInt16BE(3, 18);
    exif.writeUInt32BE(1, 20);
    exif.writeUInt16BE(options.orientation, 24);
    segments.push(jpegSegment(0xe1, exif));
  }
  for (let left = options.padding ?? 0; left > 0; left -= 65_000) segments.push(jpegSegment(0xe2, new Uint8Array(Math.min(left, 65_000))));
  const frame = Buffer.alloc(15);
  frame[0] = 8; // precision
  frame.writeUInt16BE(height, 1);
  frame.writeUInt16BE(width, 3);
  frame[5] = 3; // components: id, sampling, quantisation table
  frame.set([1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1], 6);
  return new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xd8]), ...segments, jpegSegment(0xc0, frame), Buffer.from([0xff, 0xd9])]));
}

/** A GIF89a header (logical screen descriptor only). */
export function gif(width: number, height: number): Uint8Array {
  const bytes = Buffer.alloc(13);
  bytes.write('GIF89a', 0, 'ascii');
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return new Uint8Array(bytes);
}

export const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');

/** Where the mirror serves these bytes, computed here rather than by the code under test. */
/** A copy's absolute URL under the default `PUBLIC_URL` (tests leave it unset). */
export const mirrorOf = (bytes: Uint8Array, extension: string) => `http://localhost:3000/assets/${sha256(bytes)}.${extension}`;
/**
 * A decompression bomb in miniature: a PNG whose header declares `width` × `height` pixels but
 * whose data holds only the first rows, so the file stays small however large it claims to be.
 */
export function pngDeclaring(width: number, height: number): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 0;
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', header),
      pngChunk('IDAT', deflateSync(new Uint8Array((width + 1) * 4))),
      pngChunk('IEND', new Uint8Array()),
    ]),
  );
}
