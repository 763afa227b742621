import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ RATE_LIMITS: 'developer=3' });
});
afterAll(() => t.close());

describe('developer API rate limit', () => {
  test('counts per key, reports RateLimit-* headers, and answers 429 RATE_LIMITED with Retry-After past the limit', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    const other = await mintKey(t, developer);
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await t.call('GET', '/api/dev/me', { token: key });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe('3');
      seen.push(response.headers.get('ratelimit-remaining') ?? '');
    }
    expect(seen).toEqual(['2', '1', '0']);
    const limited = await t.call('GET', '/api/dev/me', { token: key });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await t.call('GET', '/api/dev/me', { token: other })).status).toBe(200);
  });
});

describe('public rate limits', () => {
  let pub: TestApp;
  beforeAll(async () => {
    pub = await createTestApp({ RATE_LIMITS: 'public=2,installs=2' });
  });
  afterAll(() => pub.close());

  test('catalogue reads are limited per client address', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await pub.call('GET', '/api/apps/categories/list')).status);
    expect(statuses).toEqual([200, 200, 429]);
    const proxied = await pub.call('GET', '/api/apps', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    // Without TRUSTED_PROXIES the header is not believed: still the same address, still limited.
    expect(proxied.status).toBe(429);
    expect(proxied.headers.get('ratelimit-remaining')).toBe('0');
  });

  test('installs are limited per address across processes (counted in PostgreSQL), and a refused install records nothing', async () => {
    const developer = await insertDeveloper(pub);
    const app = await insertApp(pub, { developerId: developer });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await pub.call('POST', `/api/apps/${app.slug}/install`, { body: { installationId: `ws-${i}` } })).status);
    }
    expect(statuses).toEqual([201, 201, 429]);
    expect(await pub.sql('select installer from installs where app_id = ? order by id', [app.id])).toEqual([
      { installer: 'installation:ws-0' },
      { installer: 'installation:ws-1' },
    ]);
    const [{ hits }] = await pub.sql(`select sum(hits)::int as hits from rate_limit_counters where bucket like 'public-write:%'`);
    expect(hits).toBe(3);
  });

  test('uninstalls spend the same per-address write budget as installs; past it an uninstall is 429 and records nothing', async () => {
    const app = await insertApp(pub, { developerId: await insertDeveloper(pub) });
    const install = (id: string) => pub.call('POST', `/api/apps/${app.slug}/install`, { body: { installationId: id } });
    const uninstall = (id: string) => pub.call('POST', `/api/apps/${app.slug}/uninstall`, { body: { installationId: id } });
    const writes = `delete from rate_limit_counters where bucket like 'public-write:%'`;
    // A budget of this test's own: the one before spent this minute's.
    await pub.sql(writes);
    for (const id of ['ws-a', 'ws-b']) expect((await install(id)).status).toBe(201);
    await pub.sql(writes);
    const counted = await uninstall('ws-a');
    expect(counted.status).toBe(200);
    expect(counted.headers.get('ratelimit-limit')).toBe('2');
    const [{ hits }] = await pub.sql(`select sum(hits)::int as hits from rate_limit_counters where bucket like 'public-write:%'`);
    expect(hits).toBe(1);

    // The budget spent in this minute and the next (whichever the requests below fall in): uninstalls and installs alike are refused.
    await pub.sql(
      `insert into rate_limit_counters (bucket, window_start, hits)
       select distinct bucket, date_trunc('minute', now()) + make_interval(mins => g), 2 from rate_limit_counters, generate_series(0, 1) g
       where bucket like 'public-write:%'
       on conflict (bucket, window_start) do update set hits = 2`,
    );
    const refused = await uninstall('ws-b');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect((await install('ws-c')).status).toBe(429);
    expect(await pub.sql('select installer, kind from install_events where app_id = ? order by id', [app.id])).toEqual([
      { installer: 'installation:ws-a', kind: 'UNINSTALL' },
    ]);
  });
});
