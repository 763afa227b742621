import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { approvedApp, createApp } from '../apps/fixtures.ts';

/**
 * Key creation, submissions and revisions are limited per developer in PostgreSQL: two API
 * processes (two services on one database here) share one count.
 */
const LIMITS = 'keys=3,submissions=2,revisions=2';
let one: TestApp;
let two: TestApp;
let developer: TestDeveloper;
let key: string;

beforeAll(async () => {
  one = await createTestApp({ RATE_LIMITS: LIMITS });
  two = await createTestApp({ RATE_LIMITS: LIMITS, DATABASE_URL: one.runtime.databaseUrl }, { ownDatabase: true });
  developer = await registerDeveloper(one);
  // Minted before the windows matter: the writes below are what is counted.
  key = await mintKey(one, developer);
  await one.sql('delete from rate_limit_counters');
});
afterAll(async () => {
  await two.close();
  await one.close();
});

// With the API key: the two services here keep separate dev-identity signing keys, but share the key secrets.
const mint = (t: TestApp) => t.call('POST', '/api/dev/api-keys', { token: key, body: { name: 'k', scopes: ['APP_READ'] } });

test('the 4th key creation in a minute is 429 on whichever process it lands; nothing is created', async () => {
  const statuses = [(await mint(one)).status, (await mint(two)).status, (await mint(one)).status];
  expect(statuses).toEqual([201, 201, 201]);
  const keysBefore = (await one.sql('select count(*)::int as n from api_keys'))[0].n;
  const refused = await mint(two);
  expect(refused.status).toBe(429);
  expect(refused.body.code).toBe('RATE_LIMITED');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(refused.headers.get('ratelimit-limit')).toBe('3');
  expect((await one.sql('select count(*)::int as n from api_keys'))[0].n).toBe(keysBefore);
});

test('submissions and revisions are limited the same way, per developer, across processes', async () => {
  const drafts = [await createApp(one, key), await createApp(one, key), await createApp(one, key)];
  expect((await one.call('POST', `/api/dev/apps/${drafts[0].id}/submit`, { token: key })).status).toBe(200);
  expect((await two.call('POST', `/api/dev/apps/${drafts[1].id}/submit`, { token: key })).status).toBe(200);
  const third = await one.call('POST', `/api/dev/apps/${drafts[2].id}/submit`, { token: key });
  expect(third.status).toBe(429);
  expect((await one.sql('select status from apps where id = ?', [drafts[2].id]))[0].status).toBe('DRAFT');

  await one.sql(`delete from rate_limit_counters where bucket like 'submissions:%'`);
  const live = await approvedApp(one, key);
  const propose = (t: TestApp, description: string) => t.call('POST', `/api/dev/apps/${live.id}/revisions`, { token: key, body: { description } });
  expect((await propose(one, 'First.')).status).toBe(201);
  expect((await propose(two, 'Second.')).status).toBe(201);
  expect((await propose(one, 'Third.')).status).toBe(429);
  expect((await one.sql('select changes from app_revisions where app_id = ?', [live.id]))[0].changes).toEqual({ description: 'Second.' });
});
