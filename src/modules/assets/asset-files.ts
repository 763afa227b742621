import { publicLink } from '../../lib/public-url.ts';

/**
 * Mirrored images are named by their content: `/assets/<sha256>.<ext>`. Only PNG and JPEG are
 * mirrored (the formats listings accept), and the content type is the one read from the bytes,
 * never the origin's header, so nothing the service serves from its own origin can be a script.
 */
export const MIRRORED_FORMATS = {
  png: { extension: 'png', contentType: 'image/png' },
  jpg: { extension: 'jpg', contentType: 'image/jpeg' },
} as const;

export type MirroredFormat = keyof typeof MIRRORED_FORMATS;

export const isMirroredFormat = (format: string): format is MirroredFormat => format in MIRRORED_FORMATS;

/** The absolute URL of a stored copy: `PUBLIC_URL` + `/assets/<sha256>.<ext>`. */
export const mirrorUrl = (sha256: string, extension: string) => publicLink(`/assets/${sha256}.${extension}`);

/** The same copy for signed-in admins (`assets.admin.ts`): what review pages show, public or not. */
export const consoleMirrorPath = (sha256: string, extension: string) => `/admin/mirror/${sha256}.${extension}`;

const FILE_NAME = /^([0-9a-f]{64})\.(png|jpg)$/;

/** `<sha256>.<ext>` from a request path, or null for anything else. */
export function parseAssetFile(name: string): { sha256: string; extension: string } | null {
  const match = FILE_NAME.exec(name);
  return match ? { sha256: match[1]!, extension: match[2]! } : null;
}
