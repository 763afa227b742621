import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { freePort } from '../../src/db/embedded.ts';
import { recordCatalogueCacheHit, recordCatalogueCacheMiss } from '../../src/lib/metrics.ts';
import { sendNotification } from '../../jobs/mail.ts';
import { attemptDelivery } from '../../src/modules/webhooks/webhook-delivery.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { metricValue } from './prometheus-text.ts';

/**
 * `/metrics` as Prometheus scrapes it: protected by METRICS_TOKEN, and every series the operator
 * reads (requests by route template, the pool, queue depth and age, dead letters, failures, the
 * catalogue cache) moves when what it measures happens. This process runs no workers (`api`), so
 * queued jobs stay where the test put them.
 */
const TOKEN = 'metrics-token-for-tests-0123456789abcdef';
let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  const smtpPort = await freePort(); // nothing listens there: every send fails
  t = await createTestApp({ METRICS_TOKEN: TOKEN, SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, ALLOW_PRIVATE_FETCH: 'true' }, { role: 'api' });
  receiver = startReceiver();
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});

async function scrape(): Promise<string> {
  const response = await t.call('GET', '/metrics', { token: TOKEN });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toStartWith('text/plain; version=0.0.4');
  return response.body as string;
}

describe('access', () => {
  test('no token, a near miss, or another scheme is 401 problem+json; the token is 200', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${TOKEN}` },
    ]) {
      const response = await t.call('GET', '/metrics', { headers });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('UNAUTHENTICATED');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect((await t.call('GET', '/metrics', { token: TOKEN })).status).toBe(200);
  });

  test('it is not in the OpenAPI document', async () => {
    const doc = await t.call('GET', '/swagger/json');
    expect(Object.keys(doc.body.paths)).not.toContain('/metrics');
  });
});

describe('series', () => {
  test('requests are counted and timed by route template and status, never by raw path', async () => {
    const before = await scrape();
    const route = { method: 'GET', route: '/api/apps/:slug', status: '404' };
    await t.call('GET', '/api/apps/no-such-app-1');
    await t.call('GET', '/api/apps/no-such-app-2');
    await t.call('GET', '/no/such/path');
    // A route answering with a Response of its own (the console's redirect) is counted with the status sent.
    await t.call('GET', '/admin');
    const after = await scrape();
    expect(metricValue(after, 'http_requests_total', route) - metricValue(before, 'http_requests_total', route)).toBe(2);
    const timed = { method: 'GET', route: '/api/apps/:slug' };
    expect(metricValue(after, 'http_request_duration_seconds_count', timed) - metricValue(before, 'http_request_duration_seconds_count', timed)).toBe(
      2,
    );
    expect(metricValue(after, 'http_request_duration_seconds_bucket', { ...timed, le: '+Inf' })).toBe(
      metricValue(after, 'http_request_duration_seconds_count', timed),
    );
    const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
    expect(metricValue(after, 'http_requests_total', unmatched) - metricValue(before, 'http_requests_total', unmatched)).toBe(1);
    const console = { method: 'GET', route: '/admin', status: '303' };
    expect(metricValue(after, 'http_requests_total', console) - metricValue(before, 'http_requests_total', console)).toBe(1);
    expect(after).not.toContain('no-such-app');
    expect(after).not.toContain('/no/such/path');
  });

  test('requests refused before routing (an oversized body) are counted too', async () => {
    const labels = { method: 'POST', route: 'unmatched', status: '413' };
    const before = metricValue(await scrape(), 'http_requests_total', labels);
    const response = await t.call('POST', '/api/dev/apps', { rawBody: '{}', headers: { 'content-length': String(10 * 1024 * 1024) } });
    expect(response.status).toBe(413);
    expect(metricValue(await scrape(), 'http_requests_total', labels) - before).toBe(1);
  });

  test('the pool: its size, its bound, and queries waiting for a connection while it is exhausted', async () => {
    const idle = await scrape();
    expect(metricValue(idle, 'db_pool_connections_max')).toBe(10);
    expect(metricValue(idle, 'db_pool_waiting_requests')).toBe(0);
    // Twelve slow queries on a pool of ten: two wait.
    const sleepers = Array.from({ length: 12 }, () => t.ctx.orm.em.fork().execute('select pg_sleep(0.6)'));
    await Bun.sleep(150);
    const busy = await scrape();
    await Promise.all(sleepers);
    expect(metricValue(busy, 'db_pool_connections_open')).toBe(10);
    expect(metricValue(busy, 'db_pool_connections_idle')).toBe(0);
    expect(metricValue(busy, 'db_pool_waiting_requests')).toBeGreaterThanOrEqual(2);
    expect(metricValue(await scrape(), 'db_pool_waiting_requests')).toBe(0);
  });

  test('queue depth, the oldest waiting job and dead letters, per queue', async () => {
    const queue = { queue: 'stats.categories' };
    const before = await scrape();
    expect(metricValue(before, 'job_queue_metrics_up')).toBe(1);
    await t.ctx.boss.send('stats.categories', {});
    await t.ctx.boss.send('stats.categories.dead', {});
    await Bun.sleep(1100);
    const after = await scrape();
    expect(
      metricValue(after, 'job_queue_jobs', { ...queue, state: 'waiting' }) - metricValue(before, 'job_queue_jobs', { ...queue, state: 'waiting' }),
    ).toBe(1);
    expect(metricValue(after, 'job_queue_oldest_waiting_age_seconds', queue)).toBeGreaterThanOrEqual(1);
    expect(metricValue(after, 'job_dead_letters', queue) - metricValue(before, 'job_dead_letters', queue)).toBe(1);
    // Every registered queue has its series, waiting or not.
    expect(after).toContain('job_queue_jobs{queue="webhooks.deliver",state="active"} 0');
  });

  test('an e-mail SMTP refuses counts as a failure', async () => {
    const developer = await registerDeveloper(t);
    const before = metricValue(await scrape(), 'email_send_failures_total');
    const job = { messageId: `developer-verified:${developer.id}:metrics`, kind: 'developer-verified' as const, developerId: developer.id };
    await expect(sendNotification(t.ctx, job)).rejects.toThrow();
    expect(metricValue(await scrape(), 'email_send_failures_total') - before).toBe(1);
  });

  test('a webhook attempt the receiver fails counts as a failure; a success does not', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    const hook = await t.call('POST', '/api/dev/webhooks', { token: key, body: { url: receiver.url('/metrics-hook'), events: ['app.submitted'] } });
    expect(hook.status).toBe(201);
    const deps = {
      em: t.ctx.orm.em.fork(),
      jobs: t.ctx.jobs,
      encryptionKeys: t.ctx.config.webhookEncryptionKeys,
      allowPrivate: true,
      timeoutSeconds: 10,
    };
    const ping = async () => {
      const sent = await t.call('POST', `/api/dev/webhooks/${hook.body.id}/test`, { token: key });
      expect(sent.status).toBe(201);
      return attemptDelivery(deps, sent.body.id);
    };
    const before = metricValue(await scrape(), 'webhook_delivery_failures_total');
    receiver.answer('/metrics-hook', 500);
    expect(await ping()).toBe('failed');
    expect(await ping()).toBe('succeeded');
    expect(metricValue(await scrape(), 'webhook_delivery_failures_total') - before).toBe(1);
  });

  test('the catalogue cache counters move with their increment functions', async () => {
    const before = await scrape();
    recordCatalogueCacheHit();
    recordCatalogueCacheHit();
    recordCatalogueCacheMiss();
    const after = await scrape();
    expect(metricValue(after, 'catalogue_cache_hits_total') - metricValue(before, 'catalogue_cache_hits_total')).toBe(2);
    expect(metricValue(after, 'catalogue_cache_misses_total') - metricValue(before, 'catalogue_cache_misses_total')).toBe(1);
  });

  test('process figures are there', async () => {
    const text = await scrape();
    expect(metricValue(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
  });
});
