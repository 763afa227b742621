import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics: one registry per process (a scrape reads one process, as
 * Prometheus expects), the counters the code increments as things happen, and Bun's own process
 * figures. Gauges read from PostgreSQL at scrape time live with the `/metrics` route
 * (`src/modules/metrics`).
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** What requests that matched no route are counted under: raw paths would let clients mint series. */
export const UNMATCHED_ROUTE = 'unmatched';

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One method and route's requests: a histogram of durations, and counts by status. */
interface RouteSeries {
  /** Per bucket (the last is +Inf), not cumulative: one increment per request. */
  buckets: number[];
  sum: number;
  count: number;
  statuses: Map<number, number>;
}

/**
 * The HTTP request metrics are counted here, in plain numbers in nested maps, and turned into
 * Prometheus series only when scraped: prom-client's labelled `observe` hashes its label object
 * on every call, ~4 µs a request, a sixth of what a cached answer costs in all.
 */
const requestSeries = new Map<string, Map<string, RouteSeries>>();

/** `route` is the template the request matched (`/api/apps/:slug`), never the raw path. */
export function observeHttpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
  const known = KNOWN_METHODS.has(method) ? method : 'OTHER';
  let routes = requestSeries.get(known);
  if (!routes) requestSeries.set(known, (routes = new Map()));
  const template = route || UNMATCHED_ROUTE;
  let series = routes.get(template);
  if (!series) routes.set(template, (series = { buckets: DURATION_BUCKETS.map(() => 0).concat(0), sum: 0, count: 0, statuses: new Map() }));
  let bucket = 0;
  while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket += 1;
  series.buckets[bucket]! += 1;
  series.sum += seconds;
  series.count += 1;
  series.statuses.set(status, (series.statuses.get(status) ?? 0) + 1);
}

type SeriesValue = { labels: Record<string, string | number>; value: number; metricName?: string };

/** A metric prom-client's registry can print: it reads `get()` when scraped. */
function scrapedMetric(name: string, help: string, type: 'counter' | 'histogram', values: () => SeriesValue[]) {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: async () => ({ name, help, type, aggregator: 'sum' as const, values: values() }),
  };
  metricsRegistry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}

const eachSeries = function* () {
  for (const [method, routes] of requestSeries) for (const [route, series] of routes) yield { method, route, series };
};

scrapedMetric('http_request_duration_seconds', 'Time to answer an HTTP request, by method and route template', 'histogram', () =>
  [...eachSeries()].flatMap(({ method, route, series }) => {
    let cumulative = 0;
    const buckets = series.buckets.map((n, i) => {
      cumulative += n;
      return {
        labels: { method, route, le: i < DURATION_BUCKETS.length ? DURATION_BUCKETS[i]! : '+Inf' },
        value: cumulative,
        metricName: 'http_request_duration_seconds_bucket',
      };
    });
    return [
      ...buckets,
      { labels: { method, route }, value: series.sum, metricName: 'http_request_duration_seconds_sum' },
      { labels: { method, route }, value: series.count, metricName: 'http_request_duration_seconds_count' },
    ];
  }),
);

scrapedMetric('http_requests_total', 'HTTP requests answered, by method, route template and status', 'counter', () =>
  [...eachSeries()].flatMap(({ method, route, series }) =>
    [...series.statuses].map(([status, value]) => ({ labels: { method, route, status }, value })),
  ),
);

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

const searchIndexApps = new Gauge({
  name: 'catalogue_search_index_apps',
  help: "Visible apps in this process's search index (0 until its first reading is done)",
  registers: [metricsRegistry],
});
export const recordSearchIndexApps = (apps: number) => searchIndexApps.set(apps);

/** For the catalogue cache: one call per read it answers, or has to pass on to PostgreSQL. */
export const recordCatalogueCacheHit = () => cacheHits.inc();
export const recordCatalogueCacheMiss = () => cacheMisses.inc();
