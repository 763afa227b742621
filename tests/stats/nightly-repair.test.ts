import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { recomputeAllAppStats, rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { insertDeveloper, insertManyApps } from '../support/fixtures.ts';

/**
 * The nightly repair walks the catalogue a batch of apps at a time (100 a transaction), and each of
 * its statements must read its own batch's rows only: one whose plan counted every app's installs
 * and reviews for every batch made the repair quadratic in the catalogue (at 100,000 apps, 1.4–2.9 s
 * a batch and 25–48 minutes of a core a night, D233). `pg_stat_statements` counts the buffers each
 * statement touched, whatever the plan.
 */
const APPS = 3_000;
const BATCH = 100;
const root = mkdtempSync(join(tmpdir(), 'marketplace-nightly-'));
let database: EmbeddedDatabase;
let t: TestApp;

beforeAll(async () => {
  database = await startEmbeddedPostgres(root, createLogger('silent'), {
    persistent: false,
    settings: { shared_preload_libraries: 'pg_stat_statements' },
  });
  const client = new pg.Client({ connectionString: database.url('postgres') });
  await client.connect();
  await client.query('create database marketplace');
  await client.end();
  t = await createTestApp({ DATABASE_URL: database.url('marketplace') }, { ownDatabase: true });
  await t.sql('create extension pg_stat_statements');
}, 60_000);

afterAll(async () => {
  await t?.close();
  await database?.stop();
  rmSync(root, { recursive: true, force: true });
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
