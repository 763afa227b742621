import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { networkOf } from '../../src/lib/ip-address.ts';
import { INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY as BUDGET } from '../../src/modules/installs/installs.service.ts';

/**
 * Install counts drive the default sort, and installation ids are free to invent: one network's
 * fresh ids count only within a daily budget per app. Every install is still answered and kept.
 */
let t: TestApp;
beforeAll(async () => {
  // Under `app.handle` the peer is 127.0.0.1; trusting it lets X-Forwarded-For play many clients.
  t = await createTestApp({ TRUSTED_PROXIES: '127.0.0.1/32' });
});
afterAll(() => t.close());

const install = (slug: string, from: string, body?: object, token?: string) =>
  t.call('POST', `/api/apps/${slug}/install`, { headers: { 'x-forwarded-for': from }, body, token });
const installCount = async (appId: string) =>
  (await t.sql<{ n: number }>('select install_count as n from app_stats where app_id = ?', [appId]))[0]!.n;
const rows = (appId: string) => t.sql<{ counted: boolean }>('select counted from installs where app_id = ? order by id', [appId]);

test('one address posting fresh installation ids: every one is 201 and kept, only the budget counts', async () => {
  const app = await insertApp(t, { developerId: await insertDeveloper(t) });
  const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => install(app.slug, '203.0.113.9', { installationId: `ws-${i}` })));
  expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
  expect((await rows(app.id)).length).toBe(20);
  expect((await rows(app.id)).filter((row) => row.counted).length).toBe(BUDGET);
  await eventually(async () => (await installCount(app.id)) === BUDGET);

  // Another address has its own budget; a signed-in user always counts.
  expect((await install(app.slug, '198.51.100.1', { installationId: 'elsewhere' })).status).toBe(201);
  const token = await t.token('budget-user');
  expect((await install(app.slug, '203.0.113.9', undefined, token)).status).toBe(201);
  await eventually(async () => (await installCount(app.id)) === BUDGET + 2);
  // The analytics agree with the counter.
  expect((await t.sql('select count(*)::int as n from installs where app_id = ? and counted', [app.id]))[0].n).toBe(BUDGET + 2);
});

test('IPv6 addresses count per /64: rotating through one network buys nothing', async () => {
  const app = await insertApp(t, { developerId: await insertDeveloper(t) });
  for (let i = 1; i <= 10; i += 1) {
    expect((await install(app.slug, `2001:db8:1:2::${i.toString(16)}`, { installationId: `v6-${i}` })).status).toBe(201);
  }
  expect((await rows(app.id)).filter((row) => row.counted).length).toBe(BUDGET);
  // Anonymous installs without an id are one per /64 per day.
  await install(app.slug, '2001:db8:9:9::1');
  await install(app.slug, '2001:db8:9:9:ffff::2');
  const networkRows = await t.sql<{ installer: string }>(`select installer from installs where app_id = ? and installer like 'address:%'`, [app.id]);
  expect(networkRows).toHaveLength(1);
  expect(networkRows[0]!.installer).toStartWith('address:2001:db8:9:9::/64:');
});

test('networkOf: IPv4 as it is, IPv6 as its /64', () => {
  expect(networkOf('203.0.113.9')).toBe('203.0.113.9');
  expect(networkOf('2001:db8:0:1:2:3:4:5')).toBe('2001:db8:0:1::/64');
  expect(networkOf('2001:0db8:0000:0001::ffff')).toBe('2001:db8:0:1::/64');
  expect(networkOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
});
