import { afterAll, beforeAll, expect, test } from 'bun:test';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createOrm } from '../../src/db/orm.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createBlankDatabase } from '../support/database.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';

/**
 * An upgrade, not a fresh install: a database at the schema before teams (and uninstalls) holding a
 * developer's live app with installs and a review, then migrated by the service's start. The app
 * stays personal and unchanged, and the new counters and daily rows start from its history.
 */
const BEFORE_TEAMS = 'Migration20261213000001_revision_withdrawal';
const developerId = Bun.randomUUIDv7();
const appId = Bun.randomUUIDv7();
const slug = 'older-than-teams';
// Rows as JSON, so both drivers read them alike.
const INSTALLS = 'select to_jsonb(i) as row from installs i where app_id = $1 order by id';
const REVIEWS = 'select to_jsonb(r) as row from reviews r where app_id = $1';
let t: TestApp;
let appBefore: Record<string, unknown>;
let installsBefore: unknown[];
let reviewsBefore: unknown[];

beforeAll(async () => {
  const url = await createBlankDatabase();
  const orm = await createOrm(url, createLogger('silent'), { ...loadConfig({ APP_ENV: 'test', DATABASE_URL: url }).database, poolMax: 2 });
  await orm.migrator.up({ to: BEFORE_TEAMS });
  await orm.close();

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `insert into developers (id, platform_user_id, name, email, status, created_at, updated_at)
       values ($1, 'early-bird', 'Early Bird', 'early@example.com', 'VERIFIED', now(), now())`,
      [developerId],
    );
    await client.query(
      `insert into apps (id, developer_id, slug, name, description, category, environment, logo_url, screenshots, status,
                         first_approved_at, created_at, updated_at)
       values ($1, $2, $3, 'Older Than Teams', 'Listed before teams existed.', 'PRODUCTIVITY', 'production',
               'https://cdn.example.com/logo.png', '[]', 'APPROVED', now(), now() - interval '3 days', now() - interval '3 days')`,
      [appId, developerId, slug],
    );
    await client.query('insert into app_slugs (slug, app_id) values ($1, $2)', [slug, appId]);
    await client.query(
      `insert into installs (app_id, installer, platform_user_id, installed_at)
       select $1, 'user:u' || g, 'u' || g, ((now() at time zone 'utc')::date - 2 + interval '12 hours') at time zone 'utc' from generate_series(1, 3) g`,
      [appId],
    );
    await client.query(`insert into reviews (id, app_id, platform_user_id, rating, created_at, updated_at) values ($1, $2, 'u1', 4, now(), now())`, [
      Bun.randomUUIDv7(),
      appId,
    ]);
    // What the roll-ups of that version had written.
    await client.query(`update stats_watermarks set last_id = (select max(id) from installs) where name = 'installs'`);
    await client.query('update app_stats set install_count = 3, review_count = 1, rating_sum = 4, average_rating = 4 where app_id = $1', [appId]);
    appBefore = (await client.query('select to_jsonb(a) as row from apps a where id = $1', [appId])).rows[0].row;
    installsBefore = (await client.query(INSTALLS, [appId])).rows;
    reviewsBefore = (await client.query(REVIEWS, [appId])).rows;
  } finally {
    await client.end();
  }
  // The service migrates the rest on start, as in development.
  t = await createTestApp({ DATABASE_URL: url }, { ownDatabase: true });
}, 60_000);
afterAll(() => t?.close(), 30_000);

test('an app older than teams stays personal, its rows unchanged, and keeps its figures', async () => {
  const appAfter = (await t.sql<{ row: Record<string, unknown> }>('select to_jsonb(a) as row from apps a where id = ?', [appId]))[0]!.row;
  expect(appAfter.team_id).toBeNull();
  expect(Object.fromEntries(Object.keys(appBefore).map((key) => [key, appAfter[key]]))).toEqual(appBefore);
  expect(await t.sql(INSTALLS.replace('$1', '?'), [appId])).toEqual(installsBefore as never[]);
  expect(await t.sql(REVIEWS.replace('$1', '?'), [appId])).toEqual(reviewsBefore as never[]);
  expect(await t.sql('select count(*)::int as n from teams')).toEqual([{ n: 0 }]);

  expect(await t.sql('select install_count, active_installs, uninstall_count from app_stats where app_id = ?', [appId])).toEqual([
    { install_count: 3, active_installs: 3, uninstall_count: 0 },
  ]);
  expect(
    await t.sql(
      `select ((now() at time zone 'utc')::date - day)::int as days_ago, new_installs, reinstalls, uninstalls, reviews, rating_sum
       from app_daily_stats where app_id = ? order by day`,
      [appId],
    ),
  ).toEqual([
    { days_ago: 2, new_installs: 3, reinstalls: 0, uninstalls: 0, reviews: 0, rating_sum: 0 },
    { days_ago: 0, new_installs: 0, reinstalls: 0, uninstalls: 0, reviews: 1, rating_sum: 4 },
  ]);

  const view = await t.call('GET', `/api/apps/${slug}`);
  expect(view.status).toBe(200);
  expect(view.body).toMatchObject({ installCount: 3, activeInstalls: 3, reviewCount: 1, averageRating: 4, developer: { name: 'Early Bird' } });
  expect(view.body.publisher).toEqual({ name: 'Early Bird', websiteUrl: null, verifiedDomain: null });
});
