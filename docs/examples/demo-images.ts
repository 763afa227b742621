// Listing images for the README walk-through, served from this machine so the walk-through needs
// no internet: `bun run demo:images` (PORT, default 4000). The service fetches them only when it
// runs with ALLOW_PRIVATE_FETCH=true (development), as its asset checks refuse private addresses.
import { deflateSync } from 'node:zlib';

/** A solid-colour 8-bit RGB PNG. */
export function solidPng(width: number, height: number, [red, green, blue]: [number, number, number]): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const framed = Buffer.alloc(body.length + 8);
    framed.writeUInt32BE(data.length, 0);
    body.copy(framed, 4);
    framed.writeUInt32BE(Bun.hash.crc32(body), body.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2], 8); // 8 bits per channel, truecolour
  const row = Buffer.alloc(1 + width * 3); // filter byte 0, then the pixels
  for (let x = 0; x < width; x++) row.set([red, green, blue], 1 + x * 3);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', pixels),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/** What a listing needs: a 512×512 logo and two 1280×720 screenshots. */
export const DEMO_IMAGES: Record<string, Uint8Array> = {
  '/focus-timer/logo.png': solidPng(512, 512, [20, 120, 110]),
  '/focus-timer/session.png': solidPng(1280, 720, [240, 240, 235]),
  '/focus-timer/summary.png': solidPng(1280, 720, [30, 40, 60]),
};

if (import.meta.main) {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.env.PORT ?? 4000),
    fetch(request) {
      const bytes = DEMO_IMAGES[new URL(request.url).pathname];
      return bytes ? new Response(bytes, { headers: { 'content-type': 'image/png' } }) : new Response('not found', { status: 404 });
    },
  });
  for (const path of Object.keys(DEMO_IMAGES)) console.log(`http://127.0.0.1:${server.port}${path}`);
}
