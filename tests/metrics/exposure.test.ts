import { afterAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { freePort } from '../../src/db/embedded.ts';
import { serveMetrics } from '../../src/modules/metrics/metrics.api.ts';
import { queueRegistry } from '../../jobs/registry.ts';
import { PRODUCTION_SETTINGS } from '../support/production.ts';

/** Where `/metrics` is served: on a port of its own when METRICS_PORT is set, and never openly in production. */
const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

async function app(env: Record<string, string>) {
  const t = await createTestApp(env, { role: 'api' });
  apps.push(t);
  return t;
}

describe('METRICS_PORT', () => {
  test('a listener of its own serves /metrics and nothing else; the main port no longer serves it', async () => {
    const port = await freePort();
    const t = await app({ METRICS_PORT: String(port) });
    expect((await t.call('GET', '/metrics')).status).toBe(404);
    const server = serveMetrics(t.ctx, queueRegistry());
    try {
      const scrape = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toContain('db_pool_connections_max 10');
      expect((await fetch(`http://127.0.0.1:${port}/api/apps`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      await server.stop(true);
    }
  });

  test('with METRICS_TOKEN as well, the listener asks for the token', async () => {
    const port = await freePort();
    const token = 'another-metrics-token-0123456789abcdef';
    const t = await app({ METRICS_PORT: String(port), METRICS_TOKEN: token });
    const server = serveMetrics(t.ctx, queueRegistry());
    try {
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      await server.stop(true);
    }
  });
});

test('in production, without METRICS_TOKEN or METRICS_PORT, /metrics is not served', async () => {
  const t = await app(PRODUCTION_SETTINGS);
  const response = await t.call('GET', '/metrics');
  expect(response.status).toBe(404);
  expect(response.body.code).toBe('NOT_FOUND');
  expect((await t.call('GET', '/livez')).status).toBe(200);
});
