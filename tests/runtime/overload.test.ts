import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import pg from 'pg';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';

/**
 * A burst larger than the pools waits for a connection instead of failing; only a request that
 * waited past the bound is refused, as 503 OVERLOADED with Retry-After (the database is up: never
 * UNAVAILABLE). Small pools and a short bound make the edge easy to reach.
 */
let t: TestApp;
let slugs: string[];

beforeAll(async () => {
  t = await createTestApp({ DATABASE_POOL_MAX: '2', CATALOGUE_POOL_MAX: '2', CONNECTION_WAIT_MS: '400' });
  const developer = await insertDeveloper(t);
  slugs = [];
  for (let i = 0; i < 40; i += 1) slugs.push((await insertApp(t, { developerId: developer, name: `Burst App ${i}` })).slug);
});
afterAll(() => t.close());

test('a burst of 40 uncached requests on a pool of 2 queues, and every one is answered 200', async () => {
  const responses = await Promise.all(slugs.map((slug) => t.call('GET', `/api/apps/${slug}`)));
  expect(responses.map((r) => r.status)).toEqual(slugs.map(() => 200));
});

/** Holds an exclusive lock on `table`, so every query that reads it waits, holding its connection. */
async function lockTable(databaseUrl: string, table: 'apps' | 'installs') {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query(`lock table ${table} in access exclusive mode`);
  return async () => {
    await client.query('rollback');
    await client.end();
  };
}
const blockApps = () => lockTable(t.runtime.databaseUrl, 'apps');

test('past the connection-wait bound a public read is 503 OVERLOADED with Retry-After; the waiting ones then finish', async () => {
  const release = await blockApps();
  try {
    // Two misses take both catalogue connections and wait on the lock; the third waits for a connection.
    const holding = [t.call('GET', '/api/apps?search=burst&limit=1'), t.call('GET', '/api/apps?search=burst&limit=2')];
    await Bun.sleep(100);
    const refused = await t.call('GET', '/api/apps?search=burst&limit=3');
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('OVERLOADED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    await release();
    expect((await Promise.all(holding)).map((r) => r.status)).toEqual([200, 200]);
  } finally {
    await release().catch(() => {});
  }
});

test('the developer API is bounded the same way on the ORM pool', async () => {
  const developer = await registerDeveloper(t);
  const key = await mintKey(t, developer);
  const release = await blockApps();
  try {
    const holding = [t.call('GET', '/api/dev/apps', { token: key }), t.call('GET', '/api/dev/apps', { token: key })];
    await Bun.sleep(100);
    const refused = await t.call('GET', '/api/dev/apps', { token: key });
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('OVERLOADED');
    await release();
    // A developer request takes connections one after another (its key, then its data), so a
    // holder may itself have waited too long for its second one: OVERLOADED, never anything else.
    for (const held of await Promise.all(holding)) expect([200, 'OVERLOADED']).toContain(held.status === 200 ? 200 : held.body.code);
    expect((await t.call('GET', '/api/dev/apps', { token: key })).status).toBe(200);
  } finally {
    await release().catch(() => {});
  }
});

describe('past STATEMENT_TIMEOUT_MS', () => {
  let slow: TestApp;
  let slug: string;
  beforeAll(async () => {
    slow = await createTestApp({ STATEMENT_TIMEOUT_MS: '300' });
    slug = (await insertApp(slow, { developerId: await insertDeveloper(slow) })).slug;
  });
  afterAll(() => slow.close());

  test('a statement is cancelled by PostgreSQL and answered 503 OVERLOADED; nothing is written', async () => {
    const release = await lockTable(slow.runtime.databaseUrl, 'installs');
    const started = performance.now();
    const refused = await slow.call('POST', `/api/apps/${slug}/install`, { body: { installationId: 'too-slow' } });
    const elapsed = performance.now() - started;
    await release();
    console.info(`statement_timeout: install answered ${refused.status} ${refused.body.code} after ${Math.round(elapsed)} ms`);
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('OVERLOADED');
    expect(await slow.sql(`select 1 from installs where installer = 'installation:too-slow'`)).toEqual([]);
    expect((await slow.call('POST', `/api/apps/${slug}/install`, { body: { installationId: 'in-time' } })).status).toBe(201);
  });

  test('a public catalogue read is answered 503 OVERLOADED too (its own pool, D200), and the next one is served', async () => {
    const release = await lockTable(slow.runtime.databaseUrl, 'apps');
    const refused = await slow.call('GET', `/api/apps/${slug}`);
    await release();
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('OVERLOADED');
    expect((await slow.call('GET', `/api/apps/${slug}`)).status).toBe(200);
  });
});
