import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics: one registry per process (a scrape reads one process, as
 * Prometheus expects), the counters the code increments as things happen, and Bun's own process
 * figures. Gauges read from PostgreSQL at scrape time live with the `/metrics` route
 * (`src/modules/metrics`).
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method and route template',
  labelNames: ['method', 'route'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'],
  registers: [metricsRegistry],
});

/** What requests that matched no route are counted under: raw paths would let clients mint series. */
export const UNMATCHED_ROUTE = 'unmatched';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The labelled series of one method, route and status, looked up once: this runs on every request. */
const series = new Map<string, { duration: ReturnType<typeof httpDuration.labels>; count: ReturnType<typeof httpRequests.labels> }>();

/** `route` is the template the request matched (`/api/apps/:slug`), never the raw path. */
export function observeHttpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
  const known = KNOWN_METHODS.has(method) ? method : 'OTHER';
  const template = route || UNMATCHED_ROUTE;
  const key = `${known} ${template} ${status}`;
  let labelled = series.get(key);
  if (!labelled) {
    labelled = { duration: httpDuration.labels(known, template), count: httpRequests.labels(known, template, String(status)) };
    series.set(key, labelled);
  }
  labelled.duration.observe(seconds);
  labelled.count.inc();
}

const emailFailures = new Counter({
  name: 'email_send_failures_total',
  help: 'E-mails SMTP did not accept on an attempt (each is retried with backoff, then dead-lettered)',
  registers: [metricsRegistry],
});

export const recordEmailFailure = () => emailFailures.inc();

const webhookFailures = new Counter({
  name: 'webhook_delivery_failures_total',
  help: "Webhook attempts the receiver did not answer with a 2xx in time (each is retried on the delivery's schedule)",
  registers: [metricsRegistry],
});

export const recordWebhookFailure = () => webhookFailures.inc();

const cacheHits = new Counter({
  name: 'catalogue_cache_hits_total',
  help: 'Public catalogue reads answered from the cache',
  registers: [metricsRegistry],
});

const cacheMisses = new Counter({
  name: 'catalogue_cache_misses_total',
  help: 'Public catalogue reads the cache could not answer (the hit ratio is hits / (hits + misses))',
  registers: [metricsRegistry],
});

/** For the catalogue cache: one call per read it answers, or has to pass on to PostgreSQL. */
export const recordCatalogueCacheHit = () => cacheHits.inc();
export const recordCatalogueCacheMiss = () => cacheMisses.inc();
