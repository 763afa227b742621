import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import fc from 'fast-check';
import { createTestApp, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { insertApp } from '../support/fixtures.ts';
import { INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY, recordInstalls, type Installer } from '../../src/modules/installs/installs.service.ts';
import { recordUninstall } from '../../src/modules/installs/uninstalls.service.ts';
import { recomputeAllAppStats, rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import { getAppAnalytics, getDailyAnalytics } from '../../src/modules/analytics/analytics.service.ts';

/**
 * Random sequences of installs, uninstalls and reinstalls over several UTC days, through the
 * services and the real roll-up, against a model: installCount, activeInstalls, uninstallCount,
 * the daily rows and their sums must agree with it, and the nightly repair must find nothing to fix.
 *
 * Days: the acts of each simulated day are made "today" (so the per-network budgets see them as
 * the service does), then moved back to their day before anything rolls them up. The service runs
 * without workers, so only this test rolls up, at random day ends and at the end.
 */
setDefaultTimeout(300_000);
let t: TestApp;
let owner: TestDeveloper;
beforeAll(async () => {
  t = await createTestApp({}, { role: 'api' });
  owner = await registerDeveloper(t);
});
// Closing waits for the workers' jobs, slow on a loaded machine.
afterAll(() => t.close(), 30_000);

const NETWORK = '203.0.113.0';
// Mostly anonymous ids from one network, so that the budgets (3 a day) are often exceeded.
const WHO = ['user:u1', 'user:u2', 'id:i1', 'id:i2', 'id:i3', 'id:i4', 'id:i5'] as const;
type Who = (typeof WHO)[number];
const installerOf = (who: Who): Exclude<Installer, { kind: 'network' }> =>
  who.startsWith('user:') ? { kind: 'user', platformUserId: who.slice(5) } : { kind: 'installation', installationId: who.slice(3), network: NETWORK };

type Act = { kind: 'install' | 'uninstall'; who: Who };
const act = fc.record({ kind: fc.constantFrom('install' as const, 'uninstall' as const), who: fc.constantFrom(...WHO) });
/** Each day: its acts, and whether a roll-up runs at its end. */
const days = fc.array(fc.record({ acts: fc.array(act, { maxLength: 24 }), rollUp: fc.boolean() }), { minLength: 1, maxLength: 4 });

/** What the service should come to, installer by installer. */
class Model {
  private installers = new Map<Who, { counted: boolean; active: boolean; contributes: boolean }>();
  installCount = 0;
  uninstallCount = 0;
  daily: { installs: number; uninstalls: number }[] = [];
  private installBudget = 0;
  private uninstallBudget = 0;

  startDay() {
    this.daily.push({ installs: 0, uninstalls: 0 });
    this.installBudget = 0;
    this.uninstallBudget = 0;
  }
  get today() {
    return this.daily.at(-1)!;
  }
  get activeInstalls() {
    return [...this.installers.values()].filter((installer) => installer.contributes).length;
  }
  install(who: Who) {
    const known = this.installers.get(who);
    if (!known) {
      const anonymous = who.startsWith('id:');
      const counted = !anonymous || this.installBudget < INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY;
      if (anonymous && counted) this.installBudget += 1;
      this.installers.set(who, { counted, active: true, contributes: counted });
      if (counted) {
        this.installCount += 1;
        this.today.installs += 1;
      }
    } else if (!known.active) {
      known.active = true;
      if (known.counted && !known.contributes) {
        known.contributes = true;
        this.today.installs += 1;
      }
    }
  }
  /** False: never installed (404). */
  uninstall(who: Who): boolean {
    const known = this.installers.get(who);
    if (!known) return false;
    if (!known.active) return true;
    known.active = false;
    const anonymous = who.startsWith('id:');
    if (known.contributes && (!anonymous || this.uninstallBudget < INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY)) {
      if (anonymous) this.uninstallBudget += 1;
      known.contributes = false;
      this.uninstallCount += 1;
      this.today.uninstalls += 1;
    }
    return true;
  }
}

const caller = () => ({ developerId: owner.id, keyTeamId: null });
const isoDay = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

test('installs, uninstalls and reinstalls in any order: counters, daily rows and their sums agree with a model', async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(days, async (schedule) => {
      runs += 1;
      const app = await insertApp(t, { developerId: owner.id });
      const em = () => t.ctx.orm.em.fork();
      const model = new Model();
      for (const [index, day] of schedule.entries()) {
        model.startDay();
        for (const step of day.acts) {
          if (step.kind === 'install') {
            const [outcome] = await recordInstalls(t.ctx.installWriter, t.ctx.jobs, [{ slug: app.slug, installer: installerOf(step.who) }]);
            expect(outcome!.ok).toBe(true);
            model.install(step.who);
          } else {
            const known = model.uninstall(step.who);
            const outcome = await recordUninstall(t.ctx.installWriter, t.ctx.jobs, app.slug, installerOf(step.who)).then(
              () => 'ok',
              (error: { code?: string }) => error.code,
            );
            expect(outcome).toBe(known ? 'ok' : 'NOT_INSTALLED');
          }
        }
        // The day's acts, all stamped today, move back to their day before a roll-up sees them.
        const back = schedule.length - 1 - index;
        if (back > 0) {
          await t.sql(
            `update installs set installed_at = installed_at - make_interval(days => ?) where app_id = ? and installed_at >= current_date`,
            [back, app.id],
          );
          await t.sql(
            `update install_events set occurred_at = occurred_at - make_interval(days => ?) where app_id = ? and occurred_at >= current_date`,
            [back, app.id],
          );
        }
        if (day.rollUp) await rollUpNewInstalls(em());
      }
      await rollUpNewInstalls(em());

      const analytics = await getAppAnalytics(em(), caller(), app.id);
      expect({ installCount: analytics.installCount, activeInstalls: analytics.activeInstalls, uninstallCount: analytics.uninstallCount }).toEqual({
        installCount: model.installCount,
        activeInstalls: model.activeInstalls,
        uninstallCount: model.uninstallCount,
      });
      const from = isoDay(schedule.length - 1);
      const { rows } = await getDailyAnalytics(em(), caller(), app.id, { from, to: isoDay(0) });
      expect(rows.map((row) => ({ installs: row.installs, uninstalls: row.uninstalls }))).toEqual(model.daily);
      let active = 0;
      for (const row of rows) {
        active += row.installs - row.uninstalls;
        expect(row.activeInstalls).toBe(active);
      }
      expect(rows.at(-1)!.activeInstalls).toBe(model.activeInstalls);
      expect(rows.reduce((sum, row) => sum + row.uninstalls, 0)).toBe(model.uninstallCount);
      // Every installer ever is counted once, and an installer's reinstalls only after its uninstalls.
      expect(rows.reduce((sum, row) => sum + row.installs, 0)).toBeGreaterThanOrEqual(model.installCount);

      // The nightly repair, recounting from every event, finds the incremental figures right.
      expect(await recomputeAllAppStats(em())).toBe(0);
    }),
    {
      numRuns: 30,
      // Always also this one: the fourth anonymous uninstall of a day is over the budget, so its reinstall restores nothing.
      examples: [
        [
          [
            { acts: ['i1', 'i2', 'i3'].map((id): Act => ({ kind: 'install', who: `id:${id}` as Who })), rollUp: true },
            {
              acts: [
                { kind: 'install', who: 'id:i4' },
                ...['i1', 'i2', 'i3', 'i4'].map((id): Act => ({ kind: 'uninstall', who: `id:${id}` as Who })),
                { kind: 'install', who: 'id:i4' },
                { kind: 'uninstall', who: 'id:i4' },
                { kind: 'install', who: 'id:i4' },
              ],
              rollUp: false,
            },
          ],
        ],
      ],
    },
  );
  expect(runs).toBe(30);
});
