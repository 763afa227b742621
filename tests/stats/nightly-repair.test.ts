import { afterAll, beforeAll, expect, test } from 'bun:test';
import { recomputeAllAppStats, rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import type { TestApp } from '../support/harness.ts';
import { insertDeveloper, insertManyApps } from '../support/fixtures.ts';
import { createTestAppOnOwnCluster } from '../support/own-cluster.ts';

/**
 * The nightly repair walks the catalogue a batch of apps at a time (100 a transaction), and each of
 * its statements must read its own batch's rows only: one whose plan counted every app's installs
 * and reviews for every batch made the repair quadratic in the catalogue (at 100,000 apps, 1.4–2.9 s
 * a batch and 25–48 minutes of a core a night, D233). `pg_stat_statements` counts the buffers each
 * statement touched, whatever the plan.
 */
const APPS = 3_000;
const BATCH = 100;
let t: TestApp;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ t, close } = await createTestAppOnOwnCluster('nightly', { shared_preload_libraries: 'pg_stat_statements' }));
  await t.sql('create extension pg_stat_statements');
}, 60_000);

afterAll(async () => {
  await close?.();
}, 30_000);

test(`the nightly repair of ${APPS.toLocaleString('en')} apps reads each batch's own rows, not the catalogue's`, async () => {
  const developer = await insertDeveloper(t);
  await insertManyApps(t, developer, 'nightly', APPS);
  await t.sql(
    `insert into installs (app_id, installer, platform_user_id)
     select a.id, 'user:nightly-' || u, 'nightly-' || u from apps a, generate_series(1, 3) u where a.slug like 'nightly-%'`,
  );
  await rollUpNewInstalls(t.ctx.orm.em.fork());
  // The planner's statistics, as autovacuum keeps them on a live catalogue.
  await t.sql('analyze');
  await t.sql('select pg_stat_statements_reset()');

  expect(await recomputeAllAppStats(t.ctx.orm.em.fork())).toBe(0);

  const statements = await t.sql<{ query: string; calls: number; buffers: number }>(
    `select query, calls::int, (shared_blks_hit + shared_blks_read)::int as buffers
     from pg_stat_statements
     where query ~ '(app_stats|app_daily_stats|installs|reviews)' and query !~ 'pg_stat_statements'`,
  );
  expect(statements.length).toBeGreaterThan(0);
  // A batch's rows take a few buffers an app (its stats row, its installs and reviews, their index
  // pages); a statement reading the whole catalogue for each batch takes thirty times that here.
  const perBatchApp = statements.map(({ query, calls, buffers }) => ({ query: query.slice(0, 80), buffers: Math.round(buffers / calls / BATCH) }));
  expect(perBatchApp.filter(({ buffers }) => buffers > 20)).toEqual([]);
}, 120_000);
