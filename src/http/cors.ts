/**
 * Cross-origin access for the public catalogue API only (`/api/apps…`: lists, apps, installs,
 * reviews), from the origins `CORS_ORIGINS` names. The developer API, the console and everything
 * else answer no browser from another origin: they carry credentials a page must not wield.
 */
const PUBLIC_API = '/api/apps';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** What most requests get (no allowed cross-origin call): one shared empty set, not a new object each time. */
export const NO_CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

export function createCors(origins: string[]) {
  const anyOrigin = origins.includes('*');
  const allowed = (origin: string | null) => origin !== null && (anyOrigin || origins.includes(origin));
  const isPublic = (pathname: string) => pathname === PUBLIC_API || pathname.startsWith(`${PUBLIC_API}/`);

  return {
    /**
     * Headers for a response to `request`: for the public catalogue while `CORS_ORIGINS` is set,
     * always `Vary: Origin` (answers differ by Origin, so a cache must key on it even for requests
     * without one), plus the allowance when the origin is listed.
     */
    headersFor(request: Request, pathname: string): Record<string, string> {
      if (origins.length === 0 || !isPublic(pathname)) return NO_CORS_HEADERS;
      const origin = request.headers.get('origin');
      if (!allowed(origin)) return { vary: 'Origin' };
      return { 'access-control-allow-origin': anyOrigin ? '*' : origin!, vary: 'Origin' };
    },
    /** The answer to an allowed preflight (OPTIONS), or null to treat the request like any other. */
    preflight(request: Request, pathname: string): Response | null {
      if (request.method !== 'OPTIONS' || !request.headers.get('access-control-request-method')) return null;
      const headers = this.headersFor(request, pathname);
      if (!headers['access-control-allow-origin']) return null;
      return new Response(null, {
        status: 204,
        headers: {
          ...headers,
          'access-control-allow-methods': 'GET, POST',
          'access-control-allow-headers': 'authorization, content-type, x-request-id',
          'access-control-expose-headers': 'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset, etag',
          'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
        },
      });
    },
  };
}
