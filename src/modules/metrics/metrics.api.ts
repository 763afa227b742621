import { Elysia } from 'elysia';
import type { Server } from 'bun';
import type { AppContext } from '../../app-context.ts';
import { sameSecret } from '../../lib/constant-time.ts';
import { ApiError } from '../../http/problem.ts';
import { problemResponse, requestIdOf } from '../../http/lifecycle.ts';
import type { QueueRegistry } from '../queues/queues.service.ts';
import { renderMetrics } from './metrics.service.ts';

/**
 * `/metrics` in Prometheus's text format. With `METRICS_TOKEN` set, scrapers must send it as a
 * bearer token (compared in constant time); with `METRICS_PORT` set, it is served only on a
 * listener of its own (bound to `METRICS_HOST`, an internal address), which the worker role runs
 * too. In production it is not served at all without one of them (`config.metrics.onMainPort`).
 */
const bearerOf = (request: Request) => request.headers.get('authorization')?.match(/^Bearer[ ]+(\S+)[ ]*$/i)?.[1];

export function metricsHandler(ctx: AppContext, registry: QueueRegistry) {
  const { token } = ctx.config.metrics;
  return async (request: Request): Promise<Response> => {
    if (token !== undefined && !sameSecret(token, bearerOf(request))) {
      return problemResponse(new ApiError(401, 'UNAUTHENTICATED', 'The metrics token is missing or wrong'), requestIdOf(request), '/metrics');
    }
    const { contentType, body } = await renderMetrics(ctx, registry);
    return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } });
  };
}

/** The route on the main port, where the configuration allows it there. */
export function metricsApi(ctx: AppContext, registry: QueueRegistry) {
  const app = new Elysia({ name: 'metrics' });
  if (!ctx.config.metrics.onMainPort) return app;
  const handle = metricsHandler(ctx, registry);
  return app.get('/metrics', ({ request }) => handle(request), { detail: { hide: true } });
}

/** The listener of `METRICS_PORT`: `/metrics` and nothing else. */
export function serveMetrics(ctx: AppContext, registry: QueueRegistry): Server<undefined> {
  const { port, host } = ctx.config.metrics;
  if (port === undefined) throw new Error('METRICS_PORT is not set');
  const handle = metricsHandler(ctx, registry);
  const log = ctx.logger.child({ component: 'metrics' });
  return Bun.serve({
    hostname: host,
    port,
    async fetch(request) {
      if (new URL(request.url).pathname !== '/metrics') return new Response('Not found\n', { status: 404 });
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return new Response('Method not allowed\n', { status: 405, headers: { allow: 'GET, HEAD' } });
      try {
        return await handle(request);
      } catch (error) {
        log.error('metrics scrape failed', { error });
        return new Response('Metrics are unavailable\n', { status: 500 });
      }
    },
  });
}
