import { Elysia, ValidationError } from 'elysia';
import { isDatabaseUnavailable } from '../lib/database-errors.ts';
import type { AppContext } from '../app-context.ts';
import { ApiError, problemBody, validationFailed, type FieldError } from './problem.ts';

/**
 * Cross-cutting request handling for the whole app: request ids, body limits, problem+json
 * errors and one access-log line per request. It must be `.use`d first on the root app.
 */
const requestIds = new WeakMap<Request, { id: string; startedAt: number }>();

export const requestIdOf = (request: Request) => requestIds.get(request)?.id ?? 'unknown';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** `/screenshots/0/url` → `screenshots[0].url`; `body` and `query` say where the field was. */
function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .filter(Boolean)
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
}

function validationErrors(error: ValidationError): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of error.all) {
    const path = 'path' in issue && typeof issue.path === 'string' ? fieldPath(issue.path) : '';
    const message = ('summary' in issue && issue.summary) || issue.message;
    const key = `${path}:${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    errors.push({ path: path || error.type, message: String(message) });
  }
  return errors.slice(0, 20);
}

export function toApiError(code: string | number, error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ValidationError) {
    const where = error.type === 'query' ? 'query' : error.type === 'params' ? 'path' : 'request body';
    return validationFailed(`The ${where} is invalid`, validationErrors(error));
  }
  if (code === 'PARSE') return validationFailed('The request body is not valid JSON');
  if (code === 'NOT_FOUND') return new ApiError(404, 'NOT_FOUND', 'No such route');
  if (isDatabaseUnavailable(error)) {
    return new ApiError(503, 'UNAVAILABLE', 'The service is temporarily unavailable; try again shortly', undefined, {
      'retry-after': '5',
    });
  }
  return new ApiError(500, 'INTERNAL', 'An unexpected error occurred');
}

export function problemResponse(error: ApiError, requestId: string): Response {
  const headers: Record<string, string> = {
    'content-type': 'application/problem+json',
    'x-request-id': requestId,
    ...error.headers,
  };
  if (error.status === 401) headers['www-authenticate'] = 'Bearer';
  return new Response(JSON.stringify(problemBody(error, requestId)), { status: error.status, headers });
}

export function httpLifecycle(ctx: AppContext) {
  const log = ctx.logger.child({ component: 'http' });
  return new Elysia({ name: 'http-lifecycle' })
    .onRequest(({ request, set }) => {
      const sent = request.headers.get('x-request-id');
      const id = sent && REQUEST_ID_PATTERN.test(sent) ? sent : Bun.randomUUIDv7();
      requestIds.set(request, { id, startedAt: performance.now() });
      set.headers['x-request-id'] = id;
      // Bun enforces the limit on a listening server; this also covers `app.handle` and honest clients early.
      const length = Number(request.headers.get('content-length') ?? 0);
      if (length > ctx.config.maxBodyBytes) {
        return problemResponse(
          new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${ctx.config.maxBodyBytes} bytes`),
          id,
        );
      }
    })
    .onError({ as: 'global' }, ({ code, error, request }) => {
      const apiError = toApiError(code, error);
      const requestId = requestIdOf(request);
      if (apiError.status >= 500) {
        log.error('request failed', { requestId, error, method: request.method, url: new URL(request.url).pathname });
      }
      return problemResponse(apiError, requestId);
    })
    .onAfterResponse({ as: 'global' }, ({ request, set }) => {
      const started = requestIds.get(request);
      log.info('request', {
        requestId: started?.id,
        method: request.method,
        path: new URL(request.url).pathname,
        status: set.status,
        ms: started ? Math.round((performance.now() - started.startedAt) * 10) / 10 : undefined,
      });
    });
}
