import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import pg from 'pg';
import type { SqlTransaction } from '../../src/lib/sql-writer.ts';
import { reinstall } from '../../src/modules/installs/install-acts.ts';
import { holdInstallsWatermark, sendInstallRollUpUnlessWaiting } from '../../src/modules/stats/stats.service.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper, type FixtureApp } from '../support/fixtures.ts';
import { eventually } from '../support/eventually.ts';

/** Uninstalls through HTTP: the installer of the install, idempotent, reactivated by a later install; counters within 5 s. */
setDefaultTimeout(30_000);
let t: TestApp;
let developer: string;

beforeAll(async () => {
  t = await createTestApp();
  developer = await insertDeveloper(t);
});
// Closing waits for the workers' jobs, slow on a loaded machine.
afterAll(() => t.close(), 30_000);

const fresh = (fixture: Partial<Parameters<typeof insertApp>[1]> = {}) => insertApp(t, { developerId: developer, ...fixture });
const install = (app: FixtureApp, options: { token?: string; installationId?: string; forwarded?: string } = {}) =>
  t.call('POST', `/api/apps/${app.slug}/install`, {
    token: options.token,
    body: options.installationId ? { installationId: options.installationId } : {},
  });
const uninstall = (app: FixtureApp, options: { token?: string; installationId?: string; body?: unknown } = {}) =>
  t.call('POST', `/api/apps/${app.slug}/uninstall`, {
    token: options.token,
    body: options.body ?? (options.installationId ? { installationId: options.installationId } : {}),
  });
const counters = async (app: FixtureApp) => {
  const body = (await t.call('GET', `/api/apps/${app.slug}`)).body;
  return { installCount: body.installCount as number, activeInstalls: body.activeInstalls as number };
};
const settlesAt = (app: FixtureApp, expected: { installCount: number; activeInstalls: number }) =>
  eventually(async () => {
    const now = await counters(app);
    return now.installCount === expected.installCount && now.activeInstalls === expected.activeInstalls;
  });

// Each test installs into apps of its own (and the ranking test lists an environment and category
// no other test uses), and the install budget is per app: they wait on roll-ups side by side.
describe.concurrent('POST /api/apps/:slug/uninstall', () => {
  test('the OAuth installer uninstalls: 200 {slug, uninstalledAt}; again: the first uninstalledAt; activeInstalls falls within 5 s', async () => {
    const app = await fresh();
    const token = await t.token('leaver');
    expect((await install(app, { token })).status).toBe(201);
    expect((await install(app, { token: await t.token('stayer') })).status).toBe(201);
    await settlesAt(app, { installCount: 2, activeInstalls: 2 });

    const started = performance.now();
    const first = await uninstall(app, { token });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['slug', 'uninstalledAt']);
    expect(first.body.slug).toBe(app.slug);
    expect(new Date(first.body.uninstalledAt).toISOString()).toBe(first.body.uninstalledAt);
    await settlesAt(app, { installCount: 2, activeInstalls: 1 });
    expect(performance.now() - started).toBeLessThan(5_000);

    const again = await uninstall(app, { token });
    expect(again.status).toBe(200);
    expect(again.body.uninstalledAt).toBe(first.body.uninstalledAt);
    const events = await t.sql<{ kind: string; counted: boolean }>('select kind, counted from install_events where app_id = ?', [app.id]);
    expect(events).toEqual([{ kind: 'UNINSTALL', counted: true }]);
  });

  test('a later install reactivates: 201 with the reinstall time, active again, installCount unchanged; uninstall again is a new uninstall', async () => {
    const app = await fresh();
    const token = await t.token('returner');
    const installed = await install(app, { token });
    const gone = await uninstall(app, { token });
    await settlesAt(app, { installCount: 1, activeInstalls: 0 });
    const back = await install(app, { token });
    expect(back.status).toBe(201);
    expect(back.body.installedAt > installed.body.installedAt).toBe(true);
    expect(back.body.installedAt >= gone.body.uninstalledAt).toBe(true);
    // A repeat while installed answers with the install in force: the reinstall.
    expect((await install(app, { token })).body.installedAt).toBe(back.body.installedAt);
    await settlesAt(app, { installCount: 1, activeInstalls: 1 });
    const goneAgain = await uninstall(app, { token });
    expect(goneAgain.status).toBe(200);
    expect(goneAgain.body.uninstalledAt > gone.body.uninstalledAt).toBe(true);
    await settlesAt(app, { installCount: 1, activeInstalls: 0 });
    const [stats] = await t.sql<{ uninstall_count: number }>('select uninstall_count from app_stats where app_id = ?', [app.id]);
    expect(stats!.uninstall_count).toBe(2);
  });

  test('by installationId without a token; the token wins over a body id', async () => {
    const app = await fresh();
    expect((await install(app, { installationId: 'ws-1' })).status).toBe(201);
    const other = await uninstall(app, { installationId: 'ws-2' });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('NOT_INSTALLED');
    const response = await uninstall(app, { installationId: 'ws-1' });
    expect(response.status).toBe(200);
    await settlesAt(app, { installCount: 1, activeInstalls: 0 });
    // With a token, the user is the installer: this user never installed, whatever id the body names.
    const withToken = await uninstall(app, { token: await t.token('someone'), installationId: 'ws-1' });
    expect(withToken.status).toBe(404);
    expect(withToken.body.code).toBe('NOT_INSTALLED');
  });

  test('an installer who never installed: 404 NOT_INSTALLED, and nothing is recorded', async () => {
    const app = await fresh();
    await install(app, { token: await t.token('installed-one') });
    const stranger = await uninstall(app, { token: await t.token('stranger') });
    expect(stranger.status).toBe(404);
    expect(stranger.body.code).toBe('NOT_INSTALLED');
    expect(stranger.headers.get('content-type')).toContain('application/problem+json');
    expect(await t.sql('select 1 from install_events where app_id = ?', [app.id])).toHaveLength(0);
  });

  test('neither a token nor an installationId: 400; a malformed body: 400; nothing is recorded', async () => {
    const app = await fresh();
    await install(app);
    for (const body of [{}, { installationId: '' }, { installationId: 'x', extra: 1 }, { installationId: 42 }]) {
      const response = await uninstall(app, { body });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    }
    const bad = await t.call('POST', `/api/apps/${app.slug}/uninstall`, { token: 'not-a-token', body: {} });
    expect(bad.status).toBe(401);
    expect(await t.sql('select 1 from install_events where app_id = ?', [app.id])).toHaveLength(0);
  });

  test('an unknown app is 404 NOT_FOUND; an app no longer listed is 410, as for installs', async () => {
    const token = await t.token('lister');
    const unknown = await t.call('POST', '/api/apps/no-such-app/uninstall', { token, body: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    const app = await fresh();
    await install(app, { token });
    await t.sql(`update apps set status = 'SUSPENDED' where id = ?`, [app.id]);
    const gone = await uninstall(app, { token });
    expect(gone.status).toBe(410);
    expect(await t.sql('select 1 from install_events where app_id = ?', [app.id])).toHaveLength(0);
  });

  test('concurrent uninstalls of one installer append one uninstall and all answer with its time', async () => {
    const app = await fresh();
    const token = await t.token('racer');
    await install(app, { token });
    const answers = await Promise.all(Array.from({ length: 8 }, () => uninstall(app, { token })));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(new Set(answers.map((answer) => answer.body.uninstalledAt)).size).toBe(1);
    expect(await t.sql('select 1 from install_events where app_id = ?', [app.id])).toHaveLength(1);
    const reinstalls = await Promise.all(Array.from({ length: 8 }, () => install(app, { token })));
    expect(new Set(reinstalls.map((answer) => answer.body.installedAt)).size).toBe(1);
    expect(await t.sql(`select 1 from install_events where app_id = ? and kind = 'REINSTALL'`, [app.id])).toHaveLength(1);
  });

  test('anonymous uninstalls count within the per-network daily budget, like installs; an uncounted one moves nothing later either', async () => {
    const app = await fresh();
    // Yesterday three installation ids from this address counted (the install budget), today a fourth.
    for (const id of ['a', 'b', 'c']) await install(app, { installationId: id });
    await t.sql(`update installs set installed_at = installed_at - interval '1 day' where app_id = ?`, [app.id]);
    await install(app, { installationId: 'd' });
    await settlesAt(app, { installCount: 4, activeInstalls: 4 });
    // Four anonymous uninstalls from one address in a day: the fourth is answered and recorded, not counted.
    for (const id of ['a', 'b', 'c', 'd']) expect((await uninstall(app, { installationId: id })).status).toBe(200);
    await settlesAt(app, { installCount: 4, activeInstalls: 1 });
    // Its reinstall then restores nothing: the installer never stopped counting as active.
    expect((await install(app, { installationId: 'd' })).status).toBe(201);
    // A signed-in user's uninstall always counts.
    const token = await t.token('budget-user');
    await install(app, { token });
    await uninstall(app, { token });
    await settlesAt(app, { installCount: 5, activeInstalls: 1 });
    const acts = await t.sql<{ installer: string; kind: string; counted: boolean }>(
      'select installer, kind, counted from install_events where app_id = ? order by id',
      [app.id],
    );
    expect(acts).toEqual([
      { installer: 'installation:a', kind: 'UNINSTALL', counted: true },
      { installer: 'installation:b', kind: 'UNINSTALL', counted: true },
      { installer: 'installation:c', kind: 'UNINSTALL', counted: true },
      { installer: 'installation:d', kind: 'UNINSTALL', counted: false },
      { installer: 'installation:d', kind: 'REINSTALL', counted: false },
      { installer: 'user:budget-user', kind: 'UNINSTALL', counted: true },
    ]);
  });

  test('sort=installs and the featured list rank by activeInstalls, and every view shows them within 5 s of an uninstall', async () => {
    // An environment of their own, so the lists hold these two apps only.
    const kept = await fresh({ environment: 'staging', category: 'FINANCE', name: 'Kept', featured: true });
    const churned = await fresh({ environment: 'staging', category: 'FINANCE', name: 'Churned', featured: true });
    const tokens = await Promise.all(['r1', 'r2', 'r3'].map((subject) => t.token(subject)));
    for (const token of tokens) await install(churned, { token });
    for (const token of tokens.slice(0, 2)) await install(kept, { token });
    const order = async () =>
      (await t.call('GET', '/api/apps?sort=installs&category=FINANCE&environment=staging')).body.data as {
        slug: string;
        installCount: number;
        activeInstalls: number;
      }[];
    await eventually(async () => (await order()).map((app) => app.slug).join() === [churned.slug, kept.slug].join());
    for (const token of tokens.slice(0, 2)) await uninstall(churned, { token });
    const started = performance.now();
    const listed = await eventually(async () => {
      const apps = await order();
      return apps.map((app) => app.slug).join() === [kept.slug, churned.slug].join() && apps;
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(listed.map((app) => [app.installCount, app.activeInstalls])).toEqual([
      [2, 2],
      [3, 1],
    ]);
    // Featured apps are ordered as sort=installs (D231): the app with more installs ever but fewer active ones comes second.
    await eventually(async () => {
      const featured = (await t.call('GET', '/api/apps/featured/list?environment=staging')).body.data as { slug: string }[];
      return featured.map((app) => app.slug).join() === [kept.slug, churned.slug].join();
    });
    expect((await t.call('GET', `/api/apps/${churned.slug}`)).body).toMatchObject({ installCount: 3, activeInstalls: 1 });
    const search = await t.call('GET', '/api/apps?search=Churned&environment=staging');
    expect(search.body.data[0]).toMatchObject({ slug: churned.slug, activeInstalls: 1 });
  });
});

describe('a repeat install racing a reactivation of the same installer', () => {
  test('the install batch written in a transaction waits for the reactivation and answers with its time, never a deadlock', async () => {
    const app = await fresh();
    const token = await t.token('double-clicker');
    expect((await install(app, { token })).status).toBe(201);
    expect((await uninstall(app, { token })).status).toBe(200);
    // No roll-up waits, so the repeat install below is written in a transaction that sends one (D189, D222).
    await eventually(async () => {
      const [pending] = await t.sql<{ n: number }>(`select count(*)::int as n from pgboss.job where name = 'stats.installs' and state < 'completed'`);
      return pending!.n === 0;
    });
    // A reactivation of the same installer, as a batch written on its own follows it up: the
    // watermark's lock, the installer's REINSTALL, then the roll-up unless one waits (`recordInstalls`).
    const hand = new pg.Client({ connectionString: t.runtime.databaseUrl });
    await hand.connect();
    const tx: SqlTransaction = {
      query: async (statement) => (await hand.query(statement.text, statement.values)).rows,
      executeSql: (text, values) => hand.query(text, values),
    };
    try {
      await hand.query('begin');
      await holdInstallsWatermark(tx);
      const reactivated = await reinstall(tx, [{ appId: app.id, installer: 'user:double-clicker' }]);
      const repeat = install(app, { token });
      // The repeat's transaction waits for the reactivation's REINSTALL (the same installer's next act).
      await eventually(async () => {
        const [waiting] = await t.sql<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and query ilike '%REINSTALL%'`,
        );
        return waiting!.n > 0;
      });
      await sendInstallRollUpUnlessWaiting(t.ctx.jobs, tx);
      await hand.query('commit');
      const answered = await repeat;
      expect(answered.status).toBe(201);
      expect(answered.body.installedAt).toBe(reactivated.get(`${app.id} user:double-clicker`));
    } finally {
      await hand.end();
    }
    await settlesAt(app, { installCount: 1, activeInstalls: 1 });
  });
});
