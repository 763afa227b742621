import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { addEvents, insertApp, type FixtureApp } from '../support/fixtures.ts';
import { recomputeAllAppStats, rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';

setDefaultTimeout(30_000);
let t: TestApp;
let owner: TestDeveloper;
let ownerKey: string;
let app: FixtureApp;
let quiet: FixtureApp;
let othersApp: FixtureApp;

const utcDay = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await createTestApp();
  owner = await registerDeveloper(t);
  ownerKey = await mintKey(t, owner, ['ANALYTICS_READ']);
  const other = await registerDeveloper(t);
  app = await insertApp(t, { developerId: owner.id, featured: true });
  quiet = await insertApp(t, { developerId: owner.id, status: 'PENDING' });
  othersApp = await insertApp(t, { developerId: other.id });

  // Three installs today, two five days ago, one 29 days ago (the oldest day shown), one 30 days ago (not shown).
  await addEvents(t, app.id, { installs: 7, ratings: [5, 4, 4] });
  const rows = await t.sql<{ id: string }>('select id from installs where app_id = ? order by id', [app.id]);
  const ages = [0, 0, 0, 5, 5, 29, 30];
  for (const [i, row] of rows.entries()) {
    // Noon UTC of that day, so the day is unambiguous whatever the time the test runs.
    await t.sql(`update installs set installed_at = (?::date + interval '12 hours') at time zone 'utc' where id = ?`, [utcDay(ages[i]!), row.id]);
  }
  // The install days were rolled up when the rows were added: the nightly repair moves them to their new days.
  await recomputeAllAppStats(t.ctx.orm.em.fork());
  // Two of the seven uninstall (one of them reinstalls); a hidden review is left out of the distribution.
  await t.sql(
    `insert into install_events (app_id, installer, seq, kind, counted) values
       (?, 'user:fixture-user-6', 1, 'UNINSTALL', true), (?, 'user:fixture-user-7', 1, 'UNINSTALL', true),
       (?, 'user:fixture-user-7', 2, 'REINSTALL', true)`,
    [app.id, app.id, app.id],
  );
  await t.sql(
    `insert into reviews (id, app_id, platform_user_id, rating, hidden, created_at, updated_at) values (?, ?, 'fixture-user-4', 1, true, now(), now())`,
    [Bun.randomUUIDv7(), app.id],
  );
  await rollUpNewInstalls(t.ctx.orm.em.fork());
});
// Closing waits for the workers' jobs, slow on a loaded machine.
afterAll(() => t.close(), 30_000);

const analytics = (id: string, token = ownerKey) => t.call('GET', `/api/dev/apps/${id}/analytics`, { token });

test('installs, reviews, rating, status, featured, and 30 zero-filled UTC days, oldest first', async () => {
  const response = await analytics(app.id);
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({
    installCount: 7,
    activeInstalls: 6,
    uninstallCount: 2,
    reviewCount: 3,
    averageRating: 4.33,
    ratingDistribution: { '1': 0, '2': 0, '3': 0, '4': 2, '5': 1 },
    status: 'APPROVED',
    featured: true,
  });
  const days = response.body.installsByDay as { date: string; count: number }[];
  expect(days).toHaveLength(30);
  expect(days[0]!.date).toBe(utcDay(29));
  expect(days[29]!.date).toBe(utcDay(0));
  expect(days.map((d) => d.date)).toEqual([...days.map((d) => d.date)].sort());
  const counts = Object.fromEntries(days.map((d) => [d.date, d.count]));
  expect(counts[utcDay(0)]).toBe(3);
  expect(counts[utcDay(5)]).toBe(2);
  expect(counts[utcDay(29)]).toBe(1);
  expect(days.reduce((sum, d) => sum + d.count, 0)).toBe(6);
  expect(days.filter((d) => d.count === 0)).toHaveLength(27);
});

test('an app without events: zeros everywhere', async () => {
  const response = await analytics(quiet.id);
  expect(response.status).toBe(200);
  expect(response.body).toMatchObject({
    installCount: 0,
    activeInstalls: 0,
    uninstallCount: 0,
    reviewCount: 0,
    averageRating: 0,
    ratingDistribution: { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 },
    status: 'PENDING',
    featured: false,
  });
  expect(response.body.installsByDay).toHaveLength(30);
  expect(response.body.installsByDay.every((d: { count: number }) => d.count === 0)).toBe(true);
});

test("another developer's app is 404, like an unknown one; a malformed id is 400", async () => {
  for (const id of [othersApp.id, Bun.randomUUIDv7()]) {
    const response = await analytics(id);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('NOT_FOUND');
  }
  const malformed = await analytics('not-a-uuid');
  expect(malformed.status).toBe(400);
  expect(malformed.body.code).toBe('VALIDATION_FAILED');
});

test('a key without ANALYTICS_READ is 403 INSUFFICIENT_SCOPE; the OAuth token is 403 API_KEY_REQUIRED; none is 401', async () => {
  const narrow = await analytics(app.id, await mintKey(t, owner, ['APP_READ', 'APP_CREATE', 'APP_UPDATE', 'APP_DELETE']));
  expect(narrow.status).toBe(403);
  expect(narrow.body.code).toBe('INSUFFICIENT_SCOPE');
  const oauth = await analytics(app.id, owner.oauthToken);
  expect(oauth.status).toBe(403);
  expect(oauth.body.code).toBe('API_KEY_REQUIRED');
  const anonymous = await t.call('GET', `/api/dev/apps/${app.id}/analytics`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.body.code).toBe('UNAUTHENTICATED');
});
