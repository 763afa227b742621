import { Elysia, ValidationError } from 'elysia';
import { ConnectionException, DriverException } from '@mikro-orm/postgresql';
import type { AppContext } from '../app-context.ts';
import { ApiError, problemBody, validationFailed } from './problem.ts';
import { createAllowedMethods } from './allowed-methods.ts';
import { parseJsonBody } from './json-body.ts';
import { requestTargetProblems } from './request-target.ts';
import { describeValidationErrors } from './validation-messages.ts';
import { CONNECTION_WAIT_EXCEEDED, ConnectionWaitExceeded } from '../lib/connection-wait.ts';

/**
 * Cross-cutting request handling for the whole app: request ids, body limits, the one JSON body
 * parser, URL checks, baseline headers, problem+json errors and one access-log line per request.
 * It must be `.use`d first on the root app.
 */
const requestIds = new WeakMap<Request, { id: string; startedAt: number }>();

export const requestIdOf = (request: Request) => requestIds.get(request)?.id ?? 'unknown';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The path of a request URL without building a URL object (this runs on every request). */
function pathnameOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  return url.slice(start, end === -1 ? undefined : end);
}

/**
 * Whether the URL checks have anything to look at: percent-escapes or control characters to
 * decode, or more than one query parameter to compare. Most requests have none of these.
 */
const ESCAPES_OR_CONTROLS = /[%+\u0000-\u001F\u007F]/;
const mayHaveTargetProblems = (url: string) => ESCAPES_OR_CONTROLS.test(url) || url.includes('&', url.indexOf('?'));

/** Anything that means "the database is unreachable" rather than "this query is wrong". */
function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof ConnectionException) return true;
  const message = error instanceof Error ? error.message : '';
  const code = (error as { code?: string } | undefined)?.code;
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P03', '08006', '08001'].includes(code ?? '') ||
    /connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Connection terminated/i.test(message)
  );
}

/** A request that waited its full bound for a busy pool's connection (the ORM re-wraps it, keeping the code). */
function isConnectionWaitExceeded(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (current instanceof ConnectionWaitExceeded || (current as { code?: unknown }).code === CONNECTION_WAIT_EXCEEDED) return true;
  }
  return false;
}

/** How long an overloaded client should wait before trying again. */
const OVERLOADED_RETRY_AFTER_S = '2';

const WHERE: Record<string, string> = { query: 'query', params: 'path', headers: 'headers', body: 'request body' };

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
  if (isConnectionWaitExceeded(error)) {
    return new ApiError(503, 'OVERLOADED', 'The service is busy; try again shortly', undefined, { 'retry-after': OVERLOADED_RETRY_AFTER_S });
  }
  if (isDatabaseUnavailable(error) || (error instanceof DriverException && isDatabaseUnavailable(error.cause))) {
    return new ApiError(503, 'UNAVAILABLE', 'The service is temporarily unavailable; try again shortly', undefined, {
      'retry-after': '5',
    });
  }
  return new ApiError(500, 'INTERNAL', 'An unexpected error occurred');
}

/** Every response: no content sniffing; nothing under the developer API is stored by caches (a new key is in one). */
function baselineHeaders(pathname: string): Record<string, string> {
  return pathname.startsWith('/api/dev/')
    ? { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' }
    : { 'x-content-type-options': 'nosniff' };
}

export function problemResponse(error: ApiError, requestId: string, pathname = '/'): Response {
  const headers: Record<string, string> = {
    ...baselineHeaders(pathname),
    // An error is about this request only.
    'cache-control': 'no-store',
    'content-type': 'application/problem+json',
    'x-request-id': requestId,
    ...error.headers,
  };
  if (error.status === 401) headers['www-authenticate'] = 'Bearer';
  return new Response(JSON.stringify(problemBody(error, requestId)), { status: error.status, headers });
}

/** `routes` is the finished app's route table, read once on the first unmatched request. */
export function httpLifecycle(ctx: AppContext, routes: () => { method: string; path: string }[]) {
  const log = ctx.logger.child({ component: 'http' });
  const accessLog = log.enabled('info');
  const allowedMethods = createAllowedMethods(routes);
  const lifecycle = new Elysia({ name: 'http-lifecycle' })
    .onRequest(({ request, set }) => {
      const sent = request.headers.get('x-request-id');
      const id = sent && REQUEST_ID_PATTERN.test(sent) ? sent : Bun.randomUUIDv7();
      requestIds.set(request, { id, startedAt: performance.now() });
      const pathname = pathnameOf(request.url);
      Object.assign(set.headers, baselineHeaders(pathname), { 'x-request-id': id });
      const target = mayHaveTargetProblems(request.url) ? requestTargetProblems(new URL(request.url)) : null;
      if (target) {
        return problemResponse(validationFailed(`The ${target.where} is invalid`, target.errors), id, pathname);
      }
      // Bun enforces the limit on a listening server; this also covers `app.handle` and honest clients early.
      const length = Number(request.headers.get('content-length') ?? 0);
      if (length > ctx.config.maxBodyBytes) {
        return problemResponse(
          new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${ctx.config.maxBodyBytes} bytes`),
          id,
          pathname,
        );
      }
    })
    // 'json' never runs (parseJsonBody always answers); it tells the OpenAPI document the bodies are JSON.
    .guard({ as: 'global', parse: [parseJsonBody, 'json'] })
    .onError({ as: 'global' }, ({ code, error, request, set }) => {
      const pathname = new URL(request.url).pathname;
      const apiError = toApiError(code, error, code === 'NOT_FOUND' ? allowedMethods(pathname) : []);
      const requestId = requestIdOf(request);
      if (apiError.status >= 500) {
        log.error('request failed', { requestId, error, method: request.method, url: pathname });
      }
      // The access log reads the status from here: what the client got, not what Elysia first meant.
      set.status = apiError.status;
      return problemResponse(apiError, requestId, pathname);
    });
  // The access log; not even registered when it would print nothing (a hook per request costs).
  if (!accessLog) return lifecycle;
  return lifecycle.onAfterResponse({ as: 'global' }, ({ request, set }) => {
    const started = requestIds.get(request);
    log.info('request', {
      requestId: started?.id,
      method: request.method,
      path: pathnameOf(request.url),
      status: set.status,
      ms: started ? Math.round((performance.now() - started.startedAt) * 10) / 10 : undefined,
    });
  });
}
