import type { SafeHtml } from '../../../views/html.ts';

/**
 * What every admin console response shares: the security headers (a CSP without inline script
 * or style, no framing, no sniffing, no referrer leaving the site, never cached), HTML bodies,
 * redirects and cookies. The JSON API is untouched by all of this.
 */
export function consoleSecurityHeaders(): Record<string, string> {
  // Listing images are shown from the mirror only (`/admin/mirror`): a reviewer's browser never asks a developer's server.
  return {
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "form-action 'self'",
      "frame-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cache-control': 'no-store',
  };
}

export interface ResponseExtras {
  status?: number;
  headers?: Record<string, string>;
  cookies?: string[];
}

export function respond(body: string | null, security: Record<string, string>, extras: ResponseExtras = {}): Response {
  const headers = new Headers({ ...security, ...extras.headers });
  for (const cookie of extras.cookies ?? []) headers.append('set-cookie', cookie);
  return new Response(body, { status: extras.status ?? 200, headers });
}

export const htmlBody = (markup: SafeHtml) => `<!doctype html>\n${markup.value}`;

/** htmx sends `HX-Request: true` with every request it makes (history restores ask for a whole page). */
export const isHtmxRequest = (request: Request) =>
  request.headers.get('hx-request') === 'true' && request.headers.get('hx-history-restore-request') !== 'true';

/** A cookie's value, or undefined when it is absent or is not valid percent-encoding (client input, never a 500). */
export function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export interface CookieOptions {
  secure: boolean;
  /** Seconds; 0 deletes the cookie; absent makes a session cookie. */
  maxAge?: number;
  path?: string;
}

/** Always HttpOnly and SameSite=Lax. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  return [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path ?? '/'}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
    ...(options.maxAge !== undefined ? [`Max-Age=${options.maxAge}`] : []),
  ].join('; ');
}

/** A console path to go back to after a form post; anything else (another site, `//host`) is ignored. */
export function safeReturnPath(candidate: unknown): string | undefined {
  return typeof candidate === 'string' && /^\/admin(?:[/?#]|$)/.test(candidate) && !/[\r\n\\]/.test(candidate) ? candidate : undefined;
}
