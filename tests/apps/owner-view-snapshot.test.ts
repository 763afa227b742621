import { afterAll, beforeAll, expect, test } from 'bun:test';
import pg from 'pg';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';
import { assetChecksSettled, createApp } from './fixtures.ts';

/**
 * The owner view is one moment of the app: the version a decision must name and the asset checks
 * behind it are read together. Read apart, a check job that stored a copy (and moved the version)
 * between the two reads showed the new checks under the old version.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await mintKey(t, await registerDeveloper(t));
}, 30_000);
afterAll(() => t.close(), 30_000);

test('a check job committing between the reads of an owner view shows either moment whole, never a mix', async () => {
  const app = await createApp(t, key);
  await assetChecksSettled(t, app.id);
  expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: key })).body.assetChecks.length).toBeGreaterThan(0);

  // A stand-in for the check job: it holds the checks while the view reads the app, then moves both.
  const job = new pg.Client({ connectionString: t.runtime.databaseUrl });
  await job.connect();
  try {
    await job.query('begin');
    await job.query('lock table asset_checks in access exclusive mode');
    const viewing = t.call('GET', `/api/dev/apps/${app.id}`, { token: key });
    await eventually(async () => {
      const { rows } = await job.query(`select 1 from pg_locks where not granted and relation = 'asset_checks'::regclass`);
      return rows.length > 0;
    });
    await job.query('update apps set version = version + 1 where id = $1', [app.id]);
    await job.query(`update asset_checks set problems = '["checked again"]'::jsonb where app_id = $1`, [app.id]);
    await job.query('commit');

    const view = (await viewing).body;
    const checkedAgain = view.assetChecks.map((check: { problems: string[] }) => check.problems.includes('checked again'));
    expect(checkedAgain.every((again: boolean) => again === (view.version === app.version + 1))).toBe(true);
  } finally {
    await job.end();
  }
});
