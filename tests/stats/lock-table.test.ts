import { afterAll, beforeAll, expect, test } from 'bun:test';
import { recomputeAllAppStats, rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import type { TestApp } from '../support/harness.ts';
import { insertDeveloper, insertManyApps } from '../support/fixtures.ts';
import { createTestAppOnOwnCluster } from '../support/own-cluster.ts';

/**
 * PostgreSQL's lock table is shared by every connection and sized `max_locks_per_transaction` ×
 * connections; a transaction that takes a lock per app exhausts it once a roll-up spans enough
 * apps, and then every other transaction that needs a lock fails with 53200 `out of shared memory`
 * (installs at 100,000 apps did). This cluster has a small lock table (10 per connection), so a
 * few thousand apps show what a default cluster shows at tens of thousands.
 */
const APPS = 3_000;
let t: TestApp;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ t, close } = await createTestAppOnOwnCluster(
    'locks',
    { max_locks_per_transaction: 10, max_connections: 40 },
    { TRUSTED_PROXIES: '127.0.0.1/32' },
  ));
}, 60_000);

afterAll(async () => {
  await close?.();
}, 30_000);

const counts = async () =>
  t.sql<{ n: number; total: number }>('select count(*)::int as n, sum(install_count)::int as total from app_stats where install_count > 0');

test(`installs across ${APPS.toLocaleString('en')} apps: the roll-up counts them all, and installs arriving meanwhile never fail`, async () => {
  const developer = await insertDeveloper(t);
  await insertManyApps(t, developer, 'locks', APPS);
  // Installs the way the service writes them, two per app, not yet rolled up.
  await t.sql(
    `insert into installs (app_id, installer, platform_user_id)
     select a.id, 'user:locks-' || u, 'locks-' || u from apps a, generate_series(1, 2) u where a.slug like 'locks-%'`,
  );
  // The roll-up and a crowd of installs at once (each of these takes locks too).
  const installs = Array.from({ length: 200 }, (_, i) =>
    t.call('POST', `/api/apps/locks-${1 + ((i * 13) % APPS)}/install`, {
      body: { installationId: `crowd-${i}` },
      headers: { 'x-forwarded-for': `2001:db8:${i.toString(16)}::1` },
    }),
  );
  const [rolledUp, ...answers] = await Promise.all([rollUpNewInstalls(t.ctx.orm.em.fork()), ...installs]);
  expect(rolledUp).toBeGreaterThan(0);
  expect(answers.map((answer) => answer.status)).toEqual(Array(200).fill(201));
  await rollUpNewInstalls(t.ctx.orm.em.fork());
  expect(await counts()).toEqual([{ n: APPS, total: 2 * APPS + 200 }]);

  // The nightly recompute walks every app too, and finds nothing to repair.
  expect(await recomputeAllAppStats(t.ctx.orm.em.fork())).toBe(0);
}, 60_000);
