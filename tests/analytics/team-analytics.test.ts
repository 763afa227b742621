import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { createTestApp, mintKey, type TestApp } from '../support/harness.ts';
import { insertApp, type FixtureApp } from '../support/fixtures.ts';
import { recomputeAppStats, rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import { createTeam, member, teamOfThree, type Member } from '../teams/team-fixtures.ts';

/** GET /api/dev/teams/:id/analytics: each of the team's apps and their sums, for an analyst or more. */
setDefaultTimeout(30_000);
let t: TestApp;
let team: { id: string };
let analyst: Member;
let owner: Member;
let stranger: Member;
let alpha: FixtureApp;
let beta: FixtureApp;

const utcDay = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await createTestApp();
  ({ team, analyst, owner } = await teamOfThree(t));
  stranger = await member(t);
  alpha = await insertApp(t, { developerId: owner.id, name: 'Alpha' });
  beta = await insertApp(t, { developerId: owner.id, name: 'Beta' });
  const personal = await insertApp(t, { developerId: owner.id, name: 'Personal' });
  await t.sql('update apps set team_id = ? where id in (?, ?)', [team.id, alpha.id, beta.id]);
  // Alpha: 3 installs 2 days ago, one uninstalls today, a 5-star review; Beta: 1 install today, a 2-star review; Personal: 4 installs (not the team's).
  const installs: [FixtureApp, string, number][] = [
    [alpha, 'user:a1', 2],
    [alpha, 'user:a2', 2],
    [alpha, 'user:a3', 2],
    [beta, 'user:b1', 0],
    [personal, 'user:p1', 0],
    [personal, 'user:p2', 0],
    [personal, 'user:p3', 0],
    [personal, 'user:p4', 0],
  ];
  for (const [app, installer, daysAgo] of installs) {
    await t.sql('insert into installs (app_id, installer, installed_at) values (?, ?, ?)', [app.id, installer, `${utcDay(daysAgo)}T12:00:00Z`]);
  }
  await t.sql(`insert into install_events (app_id, installer, seq, kind, counted) values (?, 'user:a1', 1, 'UNINSTALL', true)`, [alpha.id]);
  for (const [app, user, rating] of [
    [alpha, 'a2', 5],
    [beta, 'b1', 2],
  ] as const) {
    await t.sql('insert into reviews (id, app_id, platform_user_id, rating, created_at, updated_at) values (?, ?, ?, ?, now(), now())', [
      Bun.randomUUIDv7(),
      app.id,
      user,
      rating,
    ]);
  }
  await rollUpNewInstalls(t.ctx.orm.em.fork());
  for (const app of [alpha, beta]) await recomputeAppStats(t.ctx.orm.em.fork(), app.id);
});
// Closing waits for the workers' jobs, slow on a loaded machine.
afterAll(() => t.close(), 30_000);

const teamAnalytics = (token: string, query = '', id = team.id) => t.call('GET', `/api/dev/teams/${id}/analytics${query}`, { token });

test("an analyst sees each of the team's apps (not the members' personal ones) and their sums", async () => {
  const response = await teamAnalytics(analyst.key, `?from=${utcDay(2)}`);
  expect(response.status).toBe(200);
  const { apps, totals } = response.body;
  expect(apps.map((app: { name: string }) => app.name)).toEqual(['Alpha', 'Beta']);
  expect(apps[0]).toMatchObject({
    id: alpha.id,
    slug: alpha.slug,
    installCount: 3,
    activeInstalls: 2,
    uninstallCount: 1,
    reviewCount: 1,
    averageRating: 5,
  });
  expect(apps[1]).toMatchObject({ id: beta.id, installCount: 1, activeInstalls: 1, uninstallCount: 0, reviewCount: 1, averageRating: 2 });
  expect(totals).toMatchObject({
    installCount: 4,
    activeInstalls: 3,
    uninstallCount: 1,
    reviewCount: 2,
    averageRating: 3.5,
    ratingDistribution: { '1': 0, '2': 1, '3': 0, '4': 0, '5': 1 },
  });
  expect(totals.daily).toEqual([
    { date: utcDay(2), installs: 3, uninstalls: 0, activeInstalls: 3, reviews: 0, averageRating: 0 },
    { date: utcDay(1), installs: 0, uninstalls: 0, activeInstalls: 3, reviews: 0, averageRating: 0 },
    { date: utcDay(0), installs: 1, uninstalls: 1, activeInstalls: 3, reviews: 2, averageRating: 3.5 },
  ]);
  expect(apps[0].daily.map((day: { activeInstalls: number }) => day.activeInstalls)).toEqual([3, 3, 2]);
  // Default: the last 30 days.
  expect((await teamAnalytics(owner.key)).body.totals.daily).toHaveLength(30);
});

test('a stranger, an unknown team and a key restricted to another team are 404; no ANALYTICS_READ 403; a bad range 400', async () => {
  for (const [token, id] of [
    [stranger.key, team.id],
    [analyst.key, Bun.randomUUIDv7()],
  ] as const) {
    const response = await teamAnalytics(token, '', id);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('NOT_FOUND');
  }
  const elsewhere = await createTeam(t, analyst);
  const restricted = await mintKey(t, analyst, ['ANALYTICS_READ'], { teamId: elsewhere.id });
  expect((await teamAnalytics(restricted)).status).toBe(404);
  const narrow = await teamAnalytics(await mintKey(t, analyst, ['APP_READ']));
  expect(narrow.status).toBe(403);
  expect(narrow.body.code).toBe('INSUFFICIENT_SCOPE');
  for (const query of ['?from=2026-02-30', `?from=${utcDay(0)}&to=${utcDay(1)}`, `?from=${utcDay(400)}`]) {
    const response = await teamAnalytics(analyst.key, query);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  }
  expect((await teamAnalytics(analyst.key, '', 'not-a-uuid')).status).toBe(400);
});
