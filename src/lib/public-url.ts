/**
 * `PUBLIC_URL`, where clients reach the service, handed over once at start-up (`startRuntime`):
 * the links the service puts in its answers (mirrored images, problem types) are absolute, so a
 * client on another origin never has to guess their base.
 */
let publicUrl = '';

export function usePublicUrl(url: string): void {
  publicUrl = url;
}

/** `PUBLIC_URL` + `path` (`path` starts with a slash). */
export const publicLink = (path: string) => `${publicUrl}${path}`;

/** A link made by `publicLink`, as a path on this service (for pages the service serves itself, such as the console). */
export const ownPath = (url: string) => (publicUrl && url.startsWith(`${publicUrl}/`) ? url.slice(publicUrl.length) : url);
