import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { INSTALLS_ROLL_UP_QUEUE, NIGHTLY_STATS_QUEUE, rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import { eventually } from '../support/eventually.ts';
import { addEvents, insertApp, insertDeveloper } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';

/** Counters are rolled up from event rows by jobs: coalesced per app under bursts, repaired nightly. */
let t: TestApp;
beforeAll(async () => {
  // The production delay: a burst joining one roll-up is what these tests prove (D211).
  t = await createTestApp({ STATS_ROLL_UP_DELAY_SECONDS: '1' });
});
afterAll(() => t.close());

const installCount = async (slug: string) => (await t.call('GET', `/api/apps/${slug}`)).body.installCount as number;

describe('roll-ups', () => {
  test('1,000 installs from distinct installers cost a handful of roll-ups, and the count is exact within 5 s of the last', async () => {
    const app = await insertApp(t, { developerId: await insertDeveloper(t) });
    let next = 0;
    const installer = async () => {
      while (next < 1_000) {
        const n = next++;
        // Signed-in users: each counts (anonymous ids from one address count only within a small budget).
        const response = await t.call('POST', `/api/apps/${app.slug}/install`, { token: await t.token(`burst-${n}`) });
        if (response.status !== 201) throw new Error(`install ${n}: ${response.status}`);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: 16 }, installer));
    const lastInstall = performance.now();

    await eventually(async () => (await installCount(app.slug)) === 1_000);
    const caughtUpMs = performance.now() - lastInstall;
    const rollUps = (
      await t.sql<{ n: number }>("select count(*)::int as n from pgboss.job where name = ? and created_on >= now() - interval '1 minute'", [
        INSTALLS_ROLL_UP_QUEUE,
      ])
    )[0]!.n;
    console.info(
      `1,000 installs in ${Math.round(lastInstall - started)} ms; ${rollUps} roll-ups; count exact ${Math.round(caughtUpMs)} ms after the last`,
    );
    expect(caughtUpMs).toBeLessThan(5_000);
    expect(rollUps).toBeGreaterThanOrEqual(1);
    expect(rollUps).toBeLessThanOrEqual(10);
  }, 60_000);

  test('a burst never loses the last events: every install committed while a roll-up waits is counted by it', async () => {
    const app = await insertApp(t, { developerId: await insertDeveloper(t) });
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => t.call('POST', `/api/apps/${app.slug}/install`, { token: await t.token(`r${round}-${i}`) })),
      );
      await Bun.sleep(300);
    }
    await eventually(async () => (await installCount(app.slug)) === 100);
  }, 30_000);

  test('installs spread over many apps share one roll-up job, and every app counts every install', async () => {
    const developer = await insertDeveloper(t);
    const apps = await Promise.all(Array.from({ length: 40 }, () => insertApp(t, { developerId: developer })));
    const jobsBefore = (await t.sql<{ n: number }>('select count(*)::int as n from pgboss.job where name = ?', [INSTALLS_ROLL_UP_QUEUE]))[0]!.n;
    let user = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let round = 0; round < 15; round += 1) {
          const app = apps[user % apps.length]!;
          const token = await t.token(`spread-${user++}`);
          expect((await t.call('POST', `/api/apps/${app.slug}/install`, { token })).status).toBe(201);
        }
      }),
    );
    // 120 installs, 3 to each of 40 apps.
    await eventually(async () => {
      const counts = await Promise.all(apps.map((app) => installCount(app.slug)));
      return counts.every((count) => count === 3);
    });
    const jobs =
      (await t.sql<{ n: number }>('select count(*)::int as n from pgboss.job where name = ?', [INSTALLS_ROLL_UP_QUEUE]))[0]!.n - jobsBefore;
    console.info(`120 installs over 40 apps: ${jobs} roll-up jobs`);
    expect(jobs).toBeLessThanOrEqual(10);
  }, 30_000);

  test('the nightly recompute repairs counters that drifted from their events', async () => {
    const developer = await insertDeveloper(t);
    const drifted = await insertApp(t, { developerId: developer });
    const fine = await insertApp(t, { developerId: developer });
    await addEvents(t, drifted.id, { installs: 4, ratings: [5, 3] });
    await addEvents(t, fine.id, { installs: 2 });
    await t.sql('update app_stats set install_count = 77, review_count = 0, rating_sum = 0, average_rating = 0 where app_id = ?', [drifted.id]);
    const fineBefore = await t.sql('select * from app_stats where app_id = ?', [fine.id]);

    const id = await t.ctx.boss.send(NIGHTLY_STATS_QUEUE, {});
    await eventually(async () => (await t.sql(`select state from pgboss.job where id = ?`, [id]))[0]?.state === 'completed');
    expect(await t.sql('select install_count, review_count, rating_sum, average_rating from app_stats where app_id = ?', [drifted.id])).toEqual([
      { install_count: 4, review_count: 2, rating_sum: 8, average_rating: '4.00' },
    ]);
    // A correct row is left as it was (not even its updated_at moves).
    expect(await t.sql('select * from app_stats where app_id = ?', [fine.id])).toEqual(fineBefore);
    expect((await t.ctx.boss.getSchedules(NIGHTLY_STATS_QUEUE)).map((s) => s.cron)).toEqual(['30 3 * * *']);
  });

  test('a roll-up rewrites each app stats row once: installs, active installs and uninstalls in one update (D192)', async () => {
    const developer = await insertDeveloper(t);
    const apps = await Promise.all([1, 2, 3].map(() => insertApp(t, { developerId: developer })));
    // Every row an UPDATE of app_stats writes, with the transaction that wrote it.
    await t.sql(`create table app_stats_writes (app_id uuid, tx bigint)`);
    await t.sql(`create function log_app_stats_writes() returns trigger language plpgsql as $$
                   begin insert into app_stats_writes select app_id, txid_current() from written; return null; end $$`);
    await t.sql(`create trigger log_app_stats_writes after update on app_stats referencing new table as written
                   for each statement execute function log_app_stats_writes()`);
    try {
      for (const [i, app] of apps.entries()) {
        await t.sql(`insert into installs (app_id, installer) select ?, 'user:one-write-' || g from generate_series(1, ?) g`, [app.id, i + 2]);
      }
      await t.sql(`insert into install_events (app_id, installer, seq, kind, counted) values (?, 'user:one-write-1', 1, 'UNINSTALL', true)`, [
        apps[0]!.id,
      ]);
      await rollUpNewInstalls(t.ctx.orm.em.fork());

      const ids = apps.map((app) => app.id);
      const idArray = `{${ids.join(',')}}`;
      const writes = await t.sql<{ app_id: string; writes: number }>(
        `select app_id::text, count(*)::int as writes from app_stats_writes where app_id = any(?::uuid[]) group by app_id, tx order by app_id`,
        [idArray],
      );
      expect(writes).toEqual([...ids].sort().map((id) => ({ app_id: id, writes: 1 })));
      expect(
        await t.sql(`select install_count, active_installs, uninstall_count from app_stats where app_id = any(?::uuid[]) order by install_count`, [
          idArray,
        ]),
      ).toEqual([
        { install_count: 2, active_installs: 1, uninstall_count: 1 },
        { install_count: 3, active_installs: 3, uninstall_count: 0 },
        { install_count: 4, active_installs: 4, uninstall_count: 0 },
      ]);
    } finally {
      await t.sql('drop trigger log_app_stats_writes on app_stats');
    }
  });

  test('the nightly recompute also repairs active installs, uninstalls and the daily rows from the install events', async () => {
    const app = await insertApp(t, { developerId: await insertDeveloper(t) });
    // Three installs today; one installer uninstalls, another uninstalls and reinstalls.
    await addEvents(t, app.id, { installs: 3 });
    await t.sql(
      `insert into install_events (app_id, installer, seq, kind, counted) values
         (?, 'user:fixture-user-1', 1, 'UNINSTALL', true), (?, 'user:fixture-user-2', 1, 'UNINSTALL', true),
         (?, 'user:fixture-user-2', 2, 'REINSTALL', true)`,
      [app.id, app.id, app.id],
    );
    await rollUpNewInstalls(t.ctx.orm.em.fork());
    const activity = () =>
      t.sql(
        `select day::text as day, new_installs, reinstalls, uninstalls from app_daily_stats
         where app_id = ? and (new_installs, reinstalls, uninstalls) <> (0, 0, 0) order by day`,
        [app.id],
      );
    const today = new Date().toISOString().slice(0, 10);
    const right = [{ day: today, new_installs: 3, reinstalls: 1, uninstalls: 2 }];
    expect(await activity()).toEqual(right);
    expect(await t.sql('select active_installs, uninstall_count from app_stats where app_id = ?', [app.id])).toEqual([
      { active_installs: 2, uninstall_count: 2 },
    ]);

    // Drift of every kind: wrong counters, a wrong day, and a day with nothing behind it.
    await t.sql('update app_stats set active_installs = 9, uninstall_count = 0 where app_id = ?', [app.id]);
    await t.sql('update app_daily_stats set uninstalls = 0, reinstalls = 4 where app_id = ?', [app.id]);
    await t.sql(`insert into app_daily_stats (app_id, day, new_installs, uninstalls) values (?, (now() at time zone 'utc')::date - 10, 5, 1)`, [
      app.id,
    ]);

    const id = await t.ctx.boss.send(NIGHTLY_STATS_QUEUE, {});
    await eventually(async () => (await t.sql(`select state from pgboss.job where id = ?`, [id]))[0]?.state === 'completed');
    expect(await t.sql('select active_installs, uninstall_count from app_stats where app_id = ?', [app.id])).toEqual([
      { active_installs: 2, uninstall_count: 2 },
    ]);
    expect(await activity()).toEqual(right);
    expect((await t.call('GET', `/api/apps/${app.slug}`)).body).toMatchObject({ installCount: 3, activeInstalls: 2 });
  });
});
