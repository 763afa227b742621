import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { insertApp, type FixtureApp } from '../support/fixtures.ts';
import { recomputeAppStats, rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import { analyticsOfApps } from '../../src/modules/analytics/analytics.service.ts';

/** The daily series read from the per-day roll-up: ranges, zeros, running figures, CSV, bad input. */
setDefaultTimeout(30_000);
let t: TestApp;
let owner: TestDeveloper;
let key: string;
let app: FixtureApp;
let second: FixtureApp;
let othersApp: FixtureApp;

const utcDay = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
/** Noon UTC of that day, so the day is unambiguous whatever the time the test runs. */
const noon = (daysAgo: number) => `${utcDay(daysAgo)}T12:00:00Z`;

async function installAt(appId: string, installer: string, daysAgo: number) {
  await t.sql(`insert into installs (app_id, installer, installed_at) values (?, ?, ?)`, [appId, installer, noon(daysAgo)]);
}
async function actAt(appId: string, installer: string, seq: number, daysAgo: number) {
  await t.sql(`insert into install_events (app_id, installer, seq, kind, counted, occurred_at) values (?, ?, ?, ?, true, ?)`, [
    appId,
    installer,
    seq,
    seq % 2 === 1 ? 'UNINSTALL' : 'REINSTALL',
    noon(daysAgo),
  ]);
}
async function reviewAt(appId: string, user: string, rating: number, daysAgo: number, hidden = false) {
  await t.sql(`insert into reviews (id, app_id, platform_user_id, rating, hidden, created_at, updated_at) values (?, ?, ?, ?, ?, ?, now())`, [
    Bun.randomUUIDv7(),
    appId,
    user,
    rating,
    hidden,
    noon(daysAgo),
  ]);
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await registerDeveloper(t);
  key = await mintKey(t, owner, ['ANALYTICS_READ']);
  app = await insertApp(t, { developerId: owner.id });
  second = await insertApp(t, { developerId: owner.id });
  othersApp = await insertApp(t, { developerId: (await registerDeveloper(t)).id });

  // 400 days ago: two installs (before any range asked here); 40 days ago one of them uninstalls.
  await installAt(app.id, 'user:old-1', 400);
  await installAt(app.id, 'user:old-2', 400);
  await actAt(app.id, 'user:old-2', 1, 40);
  // 10 days ago: three installs and a 5-star review; 5 days ago an uninstall and a 2-star review; today old-2 reinstalls.
  for (const n of [1, 2, 3]) await installAt(app.id, `user:new-${n}`, 10);
  await reviewAt(app.id, 'new-1', 5, 10);
  await actAt(app.id, 'user:new-1', 1, 5);
  await reviewAt(app.id, 'new-2', 2, 5);
  await reviewAt(app.id, 'new-3', 1, 5, true);
  await actAt(app.id, 'user:old-2', 2, 0);
  // The second app: one install 3 days ago and a 4-star review the same day.
  await installAt(second.id, 'user:second-1', 3);
  await reviewAt(second.id, 'second-1', 4, 3);
  await rollUpNewInstalls(t.ctx.orm.em.fork());
  for (const id of [app.id, second.id]) await recomputeAppStats(t.ctx.orm.em.fork(), id);
});
// Closing waits for the workers' jobs, slow on a loaded machine.
afterAll(() => t.close(), 30_000);

const daily = (id: string, query = '', headers: Record<string, string> = {}) =>
  t.call('GET', `/api/dev/apps/${id}/analytics/daily${query}`, { token: key, headers });

describe('GET /api/dev/apps/:id/analytics/daily', () => {
  test('default: the last 30 UTC days, oldest first, zeros included, running figures from before the range', async () => {
    const response = await daily(app.id);
    expect(response.status).toBe(200);
    const rows = response.body.data as Record<string, number | string>[];
    expect(rows).toHaveLength(30);
    expect(rows[0]!.date).toBe(utcDay(29));
    expect(rows[29]!.date).toBe(utcDay(0));
    expect(Object.keys(rows[0]!).sort()).toEqual(['activeInstalls', 'averageRating', 'date', 'installs', 'reviews', 'uninstalls']);
    const byDate = Object.fromEntries(rows.map((row) => [row.date, row]));
    // Before the range: 2 installs, 1 uninstall (40 days ago): 1 active.
    expect(byDate[utcDay(29)]).toEqual({ date: utcDay(29), installs: 0, uninstalls: 0, activeInstalls: 1, reviews: 0, averageRating: 0 });
    expect(byDate[utcDay(10)]).toEqual({ date: utcDay(10), installs: 3, uninstalls: 0, activeInstalls: 4, reviews: 1, averageRating: 5 });
    expect(byDate[utcDay(5)]).toEqual({ date: utcDay(5), installs: 0, uninstalls: 1, activeInstalls: 3, reviews: 1, averageRating: 3.5 });
    expect(byDate[utcDay(4)]).toEqual({ date: utcDay(4), installs: 0, uninstalls: 0, activeInstalls: 3, reviews: 0, averageRating: 3.5 });
    // Today's reinstall is an install that made an installer active again.
    expect(byDate[utcDay(0)]).toMatchObject({ installs: 1, uninstalls: 0, activeInstalls: 4 });
    expect(rows.filter((row) => row.installs === 0 && row.uninstalls === 0 && row.reviews === 0)).toHaveLength(27);
  });

  test("the last day's running figures are the app's counters", async () => {
    const [last] = (await daily(app.id)).body.data.slice(-1);
    const analytics = (await t.call('GET', `/api/dev/apps/${app.id}/analytics`, { token: key })).body;
    expect(analytics).toMatchObject({ installCount: 5, activeInstalls: 4, uninstallCount: 2, reviewCount: 2, averageRating: 3.5 });
    expect(last.activeInstalls).toBe(analytics.activeInstalls);
    expect(last.averageRating).toBe(analytics.averageRating);
  });

  test('any range up to 366 days; a single day; the days past today are zeros with the running figures', async () => {
    const year = await daily(app.id, `?from=${utcDay(365)}&to=${utcDay(0)}`);
    expect(year.status).toBe(200);
    expect(year.body.data).toHaveLength(366);
    const sum = (key: string) => year.body.data.reduce((total: number, row: Record<string, number>) => total + row[key]!, 0);
    // Within the year: 3 installs + 1 reinstall, 2 uninstalls; 2 active before it.
    expect(sum('installs')).toBe(4);
    expect(sum('uninstalls')).toBe(2);
    expect(year.body.data[0].activeInstalls).toBe(2);
    expect(year.body.data.at(-1).activeInstalls).toBe(2 + 4 - 2);

    const single = await daily(app.id, `?from=${utcDay(10)}&to=${utcDay(10)}`);
    expect(single.body.data).toEqual([{ date: utcDay(10), installs: 3, uninstalls: 0, activeInstalls: 4, reviews: 1, averageRating: 5 }]);
    // Two days ahead to three days ahead.
    const future = await daily(app.id, `?from=${utcDay(-2)}&to=${utcDay(-3)}`);
    expect(future.status).toBe(200);
    expect(future.body.data.map((row: Record<string, number>) => row.activeInstalls)).toEqual([4, 4]);
  });

  test('only `to`: the 30 days up to it; only `from`: from it to today', async () => {
    const upTo = await daily(app.id, `?to=${utcDay(100)}`);
    expect(upTo.body.data).toHaveLength(30);
    expect(upTo.body.data.at(-1).date).toBe(utcDay(100));
    expect(upTo.body.data.at(-1).activeInstalls).toBe(2);
    const since = await daily(app.id, `?from=${utcDay(3)}`);
    expect(since.body.data.map((row: { date: string }) => row.date)).toEqual([3, 2, 1, 0].map(utcDay));
  });

  test('Accept: text/csv: the same rows as an attachment with a header line', async () => {
    const json = (await daily(app.id, `?from=${utcDay(11)}&to=${utcDay(4)}`)).body.data as Record<string, unknown>[];
    const response = await fetchText(`/api/dev/apps/${app.id}/analytics/daily?from=${utcDay(11)}&to=${utcDay(4)}`, 'text/csv');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toStartWith('text/csv');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${app.slug}-${utcDay(11)}-${utcDay(4)}.csv"`);
    const lines = response.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('date,installs,uninstalls,activeInstalls,reviews,averageRating');
    expect(lines.slice(1)).toEqual(
      json.map((row) => [row.date, row.installs, row.uninstalls, row.activeInstalls, row.reviews, row.averageRating].join(',')),
    );
    expect(lines[1 + 1]).toBe(`${utcDay(10)},3,0,4,1,5`);
    // JSON for anything else, text/csv among others included.
    expect((await fetchText(`/api/dev/apps/${app.id}/analytics/daily`, 'application/json')).headers.get('content-type')).toContain('json');
    expect((await fetchText(`/api/dev/apps/${app.id}/analytics/daily`, 'application/json;q=0.5, text/csv')).headers.get('content-type')).toStartWith(
      'text/csv',
    );
  });

  test('bad input is 400 VALIDATION_FAILED: over 366 days, from after to, impossible or malformed dates', async () => {
    for (const query of [
      `?from=${utcDay(366)}&to=${utcDay(0)}`,
      '?from=2025-01-01&to=2026-12-31',
      `?from=${utcDay(1)}&to=${utcDay(2)}`,
      '?from=2026-02-30&to=2026-03-01',
      '?from=2026-02-01&to=2026-13-01',
      '?to=2026-04-31',
      '?from=2026-2-1',
      '?from=yesterday',
      '?from=2026-02-01T00:00:00Z',
    ]) {
      const response = await daily(app.id, query);
      expect(response.status, query).toBe(400);
      expect(response.body.code, query).toBe('VALIDATION_FAILED');
      expect(response.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  test("an unknown app and another developer's app are 404; a malformed id 400; no key 401; a key without ANALYTICS_READ 403", async () => {
    for (const id of [othersApp.id, Bun.randomUUIDv7()]) {
      const response = await daily(id);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    expect((await daily('nope')).status).toBe(400);
    expect((await t.call('GET', `/api/dev/apps/${app.id}/analytics/daily`)).status).toBe(401);
    const narrow = await t.call('GET', `/api/dev/apps/${app.id}/analytics/daily`, { token: await mintKey(t, owner, ['APP_READ']) });
    expect(narrow.status).toBe(403);
    expect(narrow.body.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('the analytics of several apps and their sums', () => {
  test('each app with its series, and totals that are the sums (the average weighted by reviews)', async () => {
    const result = await analyticsOfApps(t.ctx.orm.em.fork(), [app.id, second.id], { from: utcDay(10), to: utcDay(0) });
    expect(result.apps.map((entry) => entry.id).sort()).toEqual([app.id, second.id].sort());
    const first = result.apps.find((entry) => entry.id === app.id)!;
    const other = result.apps.find((entry) => entry.id === second.id)!;
    expect(other).toMatchObject({ installCount: 1, activeInstalls: 1, uninstallCount: 0, reviewCount: 1, averageRating: 4 });
    expect(result.totals).toMatchObject({
      installCount: 6,
      activeInstalls: 5,
      uninstallCount: 2,
      reviewCount: 3,
      averageRating: 3.67,
      ratingDistribution: { '1': 0, '2': 1, '3': 0, '4': 1, '5': 1 },
    });
    expect(result.totals.daily).toHaveLength(11);
    for (const [i, day] of result.totals.daily.entries()) {
      for (const field of ['installs', 'uninstalls', 'activeInstalls', 'reviews'] as const) {
        expect(day[field]).toBe(first.daily[i]![field] + other.daily[i]![field]);
      }
    }
    expect(result.totals.daily.find((day) => day.date === utcDay(3))).toMatchObject({ installs: 1, activeInstalls: 3 + 1, averageRating: 3.67 });
    expect(result.totals.daily[0]).toMatchObject({ date: utcDay(10), averageRating: 5 });
  });
});

async function fetchText(path: string, accept: string) {
  const response = await t.app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${key}`, accept } }));
  return { status: response.status, headers: response.headers, text: await response.text() };
}
