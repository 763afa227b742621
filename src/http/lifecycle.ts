import { Elysia, StatusMap, ValidationError } from 'elysia';
import { isDatabaseUnavailable } from '../lib/database-errors.ts';
import { observeHttpRequest } from '../lib/metrics.ts';
import type { AppContext } from '../app-context.ts';
import { ApiError, problemBody, validationFailed } from './problem.ts';
import { createAllowedMethods } from './allowed-methods.ts';
import { createCors, NO_CORS_HEADERS } from './cors.ts';
import { BEFORE_ROUTING, cachedResponse, wasAnsweredBeforeRouting, type CacheableBody } from './cacheable.ts';
import { createBodyParser } from './json-body.ts';
import { pathOf, requestTargetProblems, targetOf } from './request-target.ts';
import { describeValidationErrors } from './validation-messages.ts';
import { CONNECTION_WAIT_EXCEEDED, ConnectionWaitExceeded } from '../lib/connection-wait.ts';

/**
 * Cross-cutting request handling for the whole app: request ids, body limits, the one JSON body
 * parser, URL checks, baseline headers, problem+json errors and one access-log line per request.
 * It must be `.use`d first on the root app.
 */
/** `leave` counts a routed request out of `ctx.requests` once it is answered. */
const requestIds = new WeakMap<Request, { id: string; startedAt: number; leave?: () => void }>();

export const requestIdOf = (request: Request) => requestIds.get(request)?.id ?? 'unknown';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A new request id: UUID-shaped, a random prefix drawn once per process and a 48-bit counter in
 * hex, so ids are unique across processes and restarts without drawing randomness on every request
 * (a third of the cost of `randomUUIDv7`). Its last three digits come from a table and the rest is
 * formatted once per 4,096 requests: formatting the whole counter each time took a tenth of a
 * cached answer's CPU.
 */
const ID_PREFIX = crypto.randomUUID().slice(0, 24);
const LAST_DIGITS = Array.from({ length: 0x1000 }, (_, n) => n.toString(16).padStart(3, '0'));
let serialHigh = 0;
let serialLow = 0;
let idHead = `${ID_PREFIX}000000000`;
export function nextRequestId(): string {
  if (serialLow === LAST_DIGITS.length) {
    serialLow = 0;
    serialHigh += 1;
    idHead = ID_PREFIX + serialHigh.toString(16).padStart(9, '0');
  }
  return idHead + LAST_DIGITS[serialLow++]!;
}

/** The path of a request URL. */
const pathnameOf = (url: string) => pathOf(targetOf(url));

/**
 * Whether the URL checks have anything to look at: percent-escapes or control characters to
 * decode, or more than one query parameter to compare. Most requests have none of these.
 */
const ESCAPES_OR_CONTROLS = /[%+\u0000-\u001F\u007F]/;
const mayHaveTargetProblems = (url: string) => ESCAPES_OR_CONTROLS.test(url) || url.includes('&', url.indexOf('?'));

/** Whether `error`, or an error it wraps (the ORM re-wraps driver errors, keeping the code), matches. */
function causedBy(error: unknown, matches: (cause: unknown) => boolean): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (matches(current)) return true;
  }
  return false;
}

/** A request that waited its full bound for a busy pool's connection. */
const isConnectionWaitExceeded = (error: unknown) =>
  causedBy(error, (cause) => cause instanceof ConnectionWaitExceeded || (cause as { code?: unknown }).code === CONNECTION_WAIT_EXCEEDED);

/** PostgreSQL cancelled a statement that ran past `statement_timeout` (57014): too slow right now, not the caller's fault. */
const isStatementTimeout = (error: unknown) => causedBy(error, (cause) => (cause as { code?: unknown }).code === '57014');

/** How long an overloaded client should wait before trying again. */
const OVERLOADED_RETRY_AFTER_S = '2';

// 'property': Elysia's conversion of a numeric query parameter failed (its schema names the parameter).
const WHERE: Record<string, string> = { query: 'query', property: 'query', params: 'path', headers: 'headers', body: 'request body' };

/** `allowed` lists the methods served at the path of a request that matched no route. */
export function toApiError(code: string | number, error: unknown, allowed: string[] = []): ApiError {
  if (error instanceof ApiError) return error;
  // The body parser's own refusals (415, bounds, unstorable text) arrive wrapped in Elysia's ParseError.
  if (code === 'PARSE' && error instanceof Error && error.cause instanceof ApiError) return error.cause;
  if (error instanceof ValidationError) {
    // A response that fails its own schema is the server's fault, never the caller's.
    if (error.type === 'response') return new ApiError(500, 'INTERNAL', 'An unexpected error occurred');
    const where = WHERE[error.type] ?? error.type;
    return validationFailed(`The ${where} is invalid`, describeValidationErrors(error.all, where === 'request body' ? 'body' : where));
  }
  if (code === 'PARSE') return validationFailed('The request body is not valid JSON');
  if (code === 'NOT_FOUND') {
    if (allowed.length > 0) {
      return new ApiError(405, 'METHOD_NOT_ALLOWED', `This path answers ${allowed.join(', ')} only`, undefined, { allow: allowed.join(', ') });
    }
    return new ApiError(404, 'NOT_FOUND', 'No such route');
  }
  if (isConnectionWaitExceeded(error) || isStatementTimeout(error)) {
    return new ApiError(503, 'OVERLOADED', 'The service is busy; try again shortly', undefined, { 'retry-after': OVERLOADED_RETRY_AFTER_S });
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError(503, 'UNAVAILABLE', 'The service is temporarily unavailable; try again shortly', undefined, {
      'retry-after': '5',
    });
  }
  return new ApiError(500, 'INTERNAL', 'An unexpected error occurred');
}

/**
 * Every response: no content sniffing, no referrer, and a CSP that lets a JSON answer load and
 * frame nothing (pages that need more, the console and the OpenAPI UI, set their own); nothing
 * under the developer API is stored by caches (a new key is in one).
 */
const BASELINE = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};
const DEVELOPER_API_BASELINE = { ...BASELINE, 'cache-control': 'no-store' };
function baselineHeaders(pathname: string): Record<string, string> {
  return pathname.startsWith('/api/dev/') ? DEVELOPER_API_BASELINE : BASELINE;
}

export function problemResponse(error: ApiError, requestId: string, pathname = '/', extraHeaders: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    ...baselineHeaders(pathname),
    ...extraHeaders,
    // An error is about this request only.
    'cache-control': 'no-store',
    'content-type': 'application/problem+json',
    'x-request-id': requestId,
    ...error.headers,
  };
  if (error.status === 401) headers['www-authenticate'] = 'Bearer';
  return new Response(JSON.stringify(problemBody(error, requestId)), { status: error.status, headers });
}

/**
 * `routes` is the finished app's route table, read once on the first unmatched request;
 * `formPrefixes` are the paths that take HTML form posts besides JSON (the admin console).
 */
/** The request's id: the one the client sent when it is well-formed, else a new one. */
function requestIdFor(request: Request): string {
  const sent = request.headers.get('x-request-id');
  return sent && REQUEST_ID_PATTERN.test(sent) ? sent : nextRequestId();
}

/** One access-log line and the request metrics; `route` is the matched template (none for a request refused before routing). */
function createFinisher(ctx: AppContext) {
  const log = ctx.logger.child({ component: 'http' });
  const accessLog = log.enabled('info');
  const finished = (request: Request, route: string | undefined, status: number, started = requestIds.get(request)) => {
    const ms = started ? performance.now() - started.startedAt : 0;
    observeHttpRequest(request.method, route, status, ms / 1000);
    if (accessLog)
      log.info('request', {
        requestId: started?.id,
        method: request.method,
        path: pathnameOf(request.url),
        status,
        ms: started ? Math.round(ms * 10) / 10 : undefined,
      });
  };
  return { log, finished };
}

/**
 * A cached public answer given by the server's own route table, before Elysia builds a context for
 * the request (D190): what the lifecycle gives every request (its id, the baseline and CORS headers,
 * the metrics and the access-log line) and what `answerFromHook` gives a cached one, without the
 * per-request work of Elysia's hooks, which cost a cached answer a third of its rate. Only for a
 * request target answered through Elysia before (so already checked and validated).
 */
export function createEarlyAnswers(ctx: AppContext) {
  const { finished } = createFinisher(ctx);
  const cors = createCors(ctx.config.corsOrigins);
  return (request: Request, target: string, cached: CacheableBody): Response => {
    const started = { id: requestIdFor(request), startedAt: performance.now() };
    const pathname = pathOf(target);
    const response = cachedResponse(request, cached, baselineHeaders(pathname), cors.headersFor(request, pathname), started.id);
    finished(request, BEFORE_ROUTING, response.status, started);
    return response;
  };
}

export function httpLifecycle(ctx: AppContext, routes: () => { method: string; path: string }[], options: { formPrefixes?: readonly string[] } = {}) {
  const { log, finished } = createFinisher(ctx);
  const allowedMethods = createAllowedMethods(routes);
  const cors = createCors(ctx.config.corsOrigins);
  const refuse = (request: Request, error: ApiError, id: string, pathname: string, headers: Record<string, string>) => {
    finished(request, undefined, error.status);
    return problemResponse(error, id, pathname, headers);
  };
  return (
    new Elysia({ name: 'http-lifecycle' })
      .onRequest(({ request, set }) => {
        const id = requestIdFor(request);
        requestIds.set(request, { id, startedAt: performance.now() });
        const pathname = pathnameOf(request.url);
        const preflight = cors.preflight(request, pathname);
        if (preflight) {
          for (const [name, value] of Object.entries({ ...baselineHeaders(pathname), 'x-request-id': id })) preflight.headers.set(name, value);
          finished(request, undefined, preflight.status);
          return preflight;
        }
        const corsHeaders = cors.headersFor(request, pathname);
        // The constant headers are shared objects, copied in; nothing is built per request but the id.
        Object.assign(set.headers, baselineHeaders(pathname));
        if (corsHeaders !== NO_CORS_HEADERS) Object.assign(set.headers, corsHeaders);
        set.headers['x-request-id'] = id;
        const target = mayHaveTargetProblems(request.url) ? requestTargetProblems(new URL(request.url)) : null;
        if (target) {
          return refuse(request, validationFailed(`The ${target.where} is invalid`, target.errors), id, pathname, corsHeaders);
        }
        // Bun enforces the limit on a listening server; this also covers `app.handle` and honest clients early.
        const length = Number(request.headers.get('content-length') ?? 0);
        if (length > ctx.config.maxBodyBytes) {
          return refuse(
            request,
            new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${ctx.config.maxBodyBytes} bytes`),
            id,
            pathname,
            corsHeaders,
          );
        }
      })
      // 'json' never runs (the parser always answers); it tells the OpenAPI document the bodies are JSON.
      .guard({ as: 'global', parse: [createBodyParser({ formPrefixes: options.formPrefixes ?? [] }), 'json'] })
      .onError({ as: 'global' }, ({ code, error, request, set }) => {
        const pathname = new URL(request.url).pathname;
        const apiError = toApiError(code, error, code === 'NOT_FOUND' ? allowedMethods(pathname) : []);
        const requestId = requestIdOf(request);
        if (apiError.status >= 500) {
          log.error('request failed', { requestId, error, method: request.method, url: pathname });
        }
        // The access log reads the status from here: what the client got, not what Elysia first meant.
        set.status = apiError.status;
        return problemResponse(apiError, requestId, pathname, cors.headersFor(request, pathname));
      })
      // A routed request is counted in until it is answered (a client that hung up does not end it):
      // the shutdown waits for these before closing the pools. Requests answered in `onRequest` are
      // answered at once, and only routed ones are sure to reach `onAfterResponse`.
      .onTransform({ as: 'global' }, ({ request }) => {
        const started = requestIds.get(request);
        if (started) started.leave = ctx.requests.enter();
      })
      .onAfterResponse({ as: 'global' }, ({ request, route, set, responseValue }) => {
        requestIds.get(request)?.leave?.();
        // A route may answer with a Response of its own (the console's redirects); its status is the one sent.
        const status =
          responseValue instanceof Response
            ? responseValue.status
            : typeof set.status === 'number'
              ? set.status
              : (StatusMap[set.status as keyof typeof StatusMap] ?? 200);
        finished(request, route || (wasAnsweredBeforeRouting(request) ? BEFORE_ROUTING : undefined), status);
      })
  );
}
