/**
 * Public GETs are cacheable by browsers and a CDN: an `ETag` of the body (a repeat with
 * `If-None-Match` is a 304 without one), a short `max-age` and `s-maxage` so a change reaches
 * clients within about a second, and `stale-while-revalidate` so a CDN keeps answering while it
 * revalidates. No cookies and no per-client headers are added to them.
 */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=1, s-maxage=1, stale-while-revalidate=30';

/**
 * A serialised response body and its entity tag, as the catalogue caches it. The JSON is encoded
 * once, into a Blob that every answer shares: a string body was encoded again for each response,
 * the larger part of a cached answer's cost (D197).
 */
export interface CacheableBody {
  body: Blob;
  etag: string;
}

export function cacheableBody(value: unknown): CacheableBody {
  const bytes = Buffer.from(JSON.stringify(value));
  return { body: new Blob([bytes]), etag: `"${Bun.hash(bytes).toString(36)}"` };
}

function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate === etag || candidate === `W/${etag}`;
  });
}

/** The 200 (or 304) for a cached body; Elysia adds the request's own headers (`x-request-id`…). */
export function cacheableResponse(request: Request, cached: CacheableBody): Response {
  return cachedResponse(request, cached, NO_HEADERS, NO_HEADERS);
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The same, answered before Elysia (which adds none): `shared` are the headers every answer of the
 * path has (a constant object: the lifecycle's baseline), `own` the request's CORS headers (a shared
 * empty object for most) and `requestId` its id. A 200's headers are built into a `Headers` once per
 * body and `shared`, which the Response copies natively: built from a plain object, each entry was
 * converted again for every answer, about half of an early answer's own cost (D206). 304s, rare,
 * are built as they come.
 */
export function cachedResponse(
  request: Request,
  cached: CacheableBody,
  shared: Readonly<Record<string, string>>,
  own: Readonly<Record<string, string>>,
  requestId?: string,
): Response {
  const cacheHeaders = () => ({ ...shared, etag: cached.etag, 'cache-control': PUBLIC_CACHE_CONTROL });
  if (matches(request.headers.get('if-none-match'), cached.etag)) {
    return new Response(null, {
      status: 304,
      headers: { ...cacheHeaders(), ...own, ...(requestId === undefined ? {} : { 'x-request-id': requestId }) },
    });
  }
  let built = okHeaders.get(cached);
  if (built?.shared !== shared)
    okHeaders.set(cached, (built = { shared, headers: new Headers({ ...cacheHeaders(), 'content-type': 'application/json' }) }));
  const response = new Response(cached.body, { status: 200, headers: built.headers });
  if (requestId !== undefined) response.headers.set('x-request-id', requestId);
  for (const name in own) response.headers.set(name, own[name]!);
  return response;
}
const okHeaders = new WeakMap<CacheableBody, { shared: Readonly<Record<string, string>>; headers: Headers }>();

/** Requests answered from the cache before routing: they matched no route, but they are not strays. */
const answeredBeforeRouting = new WeakSet<Request>();
export const wasAnsweredBeforeRouting = (request: Request) => answeredBeforeRouting.has(request);

/** What the metrics call a request answered before routing. */
export const BEFORE_ROUTING = 'cached before routing';

/**
 * The same answer given straight from an `onRequest` hook: the headers go into the request's own
 * header set (which already holds `x-request-id`), so Elysia builds one Response, not two.
 */
export function answerFromHook(
  request: Request,
  set: { status?: number | string; headers: Record<string, string | number> },
  cached: CacheableBody,
): Response {
  answeredBeforeRouting.add(request);
  set.headers.etag = cached.etag;
  set.headers['cache-control'] = PUBLIC_CACHE_CONTROL;
  if (matches(request.headers.get('if-none-match'), cached.etag)) {
    set.status = 304;
    return new Response(null, { status: 304 });
  }
  set.headers['content-type'] = 'application/json';
  // A Response, not the Blob: Elysia would answer a Blob as a file (ranges and all).
  return new Response(cached.body);
}
