import { imageSize } from 'image-size';

/**
 * What a listing's images must be (advisory: reported to the owner and reviewers, never
 * blocking): PNG or JPG; a square logo of at least 512x512; a 1200x600 banner; screenshots
 * of at least 1280x720; no larger than their kind's size cap nor than 40 megapixels (past either
 * an image is not mirrored).
 * Pure functions of the bytes, so they are tested without a network.
 */
export type AssetKind = 'logo' | 'banner' | 'screenshot';

export interface ImageFacts {
  /** As image-size names it: 'png', 'jpg', 'gif', 'webp', 'svg', … */
  format: string;
  width: number;
  height: number;
}

const ACCEPTED_FORMATS = new Set(['png', 'jpg']);
const MiB = 1024 * 1024;
/** The most bytes of each kind the mirror stores: generous for the sizes asked for, bounded for the database. */
export const MAX_ASSET_BYTES: Record<AssetKind, number> = { logo: 1 * MiB, banner: 2 * MiB, screenshot: 5 * MiB };

/**
 * The most pixels an image may declare: far more than any listing image needs, far below what
 * decoders accept. A few kilobytes can declare gigapixels (a decompression bomb), so such an
 * image is never mirrored: nothing downstream (a browser, a thumbnailer) is handed it by us.
 */
export const MAX_IMAGE_PIXELS = 40_000_000;

/** The problem of an image declaring more than MAX_IMAGE_PIXELS; null when it is within the bound. */
export const pixelBoundProblem = (image: ImageFacts) =>
  image.width * image.height > MAX_IMAGE_PIXELS
    ? `image must be at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels (got ${image.width}x${image.height}; not mirrored)`
    : null;

/** The problem of an image past its kind's cap (its size was read from the first bytes). */
export const tooLargeProblem = (kind: AssetKind) => `${kind} must be at most ${MAX_ASSET_BYTES[kind] / MiB} MiB (not mirrored)`;
const LOGO_MIN = 512;
const BANNER = { width: 1200, height: 600 };
const SCREENSHOT_MIN = { width: 1280, height: 720 };

/** The kind of image a check field holds: 'logoUrl', 'bannerUrl' or 'screenshots[i]'. */
export function assetKindOf(field: string): AssetKind {
  if (field === 'logoUrl') return 'logo';
  if (field === 'bannerUrl') return 'banner';
  return 'screenshot';
}

/** Format and displayed size read from the bytes; null when image-size cannot read them. */
export function readImageFacts(bytes: Uint8Array): ImageFacts | null {
  try {
    const size = imageSize(bytes);
    if (!size.type || !size.width || !size.height) return null;
    // EXIF orientations 5-8 rotate by 90°, so the image is displayed with its sides swapped.
    const rotated = (size.orientation ?? 1) >= 5;
    return { format: size.type, width: rotated ? size.height : size.width, height: rotated ? size.width : size.height };
  } catch {
    return null;
  }
}

/** Human-readable problems with an image used as `kind`; none means the image is fine. */
export function assetProblems(kind: AssetKind, image: ImageFacts): string[] {
  const problems: string[] = [];
  if (!ACCEPTED_FORMATS.has(image.format)) problems.push(`format must be PNG or JPG (got ${image.format})`);
  const got = `${image.width}x${image.height}`;
  switch (kind) {
    case 'logo':
      if (image.width !== image.height) problems.push(`logo must be square (got ${got})`);
      if (image.width < LOGO_MIN || image.height < LOGO_MIN) problems.push(`logo must be at least ${LOGO_MIN}x${LOGO_MIN} (got ${got})`);
      break;
    case 'banner':
      if (image.width !== BANNER.width || image.height !== BANNER.height) {
        problems.push(`banner must be ${BANNER.width}x${BANNER.height} (got ${got})`);
      }
      break;
    case 'screenshot':
      if (image.width < SCREENSHOT_MIN.width || image.height < SCREENSHOT_MIN.height) {
        problems.push(`screenshot must be at least ${SCREENSHOT_MIN.width}x${SCREENSHOT_MIN.height} (got ${got})`);
      }
      break;
  }
  return problems;
}
