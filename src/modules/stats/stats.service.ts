import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../../lib/job-queue.ts';
import { bumpCatalogueVersion } from '../catalogue/catalogue-version.ts';
import { OWNER_JOINS, VISIBLE } from '../catalogue/catalogue-rows.ts';
import { addActivity, appsWithActivity, recountActivity, recountReviewDays } from './daily-stats.ts';

/**
 * Counters are never UPDATEd in place by requests: installs and reviews are appended as event
 * rows, and the roll-ups here recompute the narrow stats rows from them, under a per-app
 * advisory lock, so the last writer always counts every committed event. Reviews roll up per
 * app; installs, far more numerous, share one roll-up that follows a watermark.
 */
export const APP_STATS_QUEUE = 'stats.app';
export const CATEGORY_COUNTS_QUEUE = 'stats.categories';
export const NIGHTLY_STATS_QUEUE = 'stats.nightly';
export const INSTALLS_ROLL_UP_QUEUE = 'stats.installs';

/** The per-app lock: event writers take it shared, a roll-up exclusive. */
const APP_STATS_LOCK = `hashtext('app-stats'), hashtext(?)`;

/** The lock install transactions take shared and the installs roll-up exclusive, to see where they end. */
const INSTALLS_LOCK = `hashtext('install-roll-up')`;

/** Upserts the stats rows of the apps `where` selects (one `?`), from their events; returns how many changed. */
async function rollUp(tx: EntityManager, where: string, param: unknown): Promise<number> {
  const changed = await tx.execute<{ app_id: string }[]>(
    `insert into app_stats as s (app_id, install_count, review_count, rating_sum, average_rating, updated_at)
       select a.id,
              (select count(*) from installs i where i.app_id = a.id and i.counted),
              r.review_count, r.rating_sum,
              case when r.review_count = 0 then 0 else round(r.rating_sum::numeric / r.review_count, 2) end,
              now()
       from apps a,
            lateral (select count(*)::int as review_count, coalesce(sum(rating), 0)::int as rating_sum
                     from reviews where app_id = a.id and not hidden) r
       where ${where}
       on conflict (app_id) do update set
         install_count = excluded.install_count, review_count = excluded.review_count,
         rating_sum = excluded.rating_sum, average_rating = excluded.average_rating, updated_at = excluded.updated_at
       where (s.install_count, s.review_count, s.rating_sum, s.average_rating)
         is distinct from (excluded.install_count, excluded.review_count, excluded.rating_sum, excluded.average_rating)
       returning s.app_id`,
    [param],
  );
  // Only a counter that moved invalidates the public catalogue's cached responses.
  if (changed.length > 0) await bumpCatalogueVersion(tx);
  return changed.length;
}

/**
 * Recomputes one app's counters. The exclusive lock waits for every transaction that appended an
 * event and enqueued (or joined) a roll-up to commit, so this count includes all of them.
 */
export async function recomputeAppStats(em: EntityManager, appId: string): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(${APP_STATS_LOCK})`, [appId]);
    await rollUp(tx, 'a.id = ?', appId);
    await recountReviewDays(tx, [appId]);
  });
}

/** Takes the roll-up locks of several apps, in one order (so two takers cannot deadlock). */
async function lockApps(tx: EntityManager, ids: string[]): Promise<void> {
  await tx.execute(
    `select pg_advisory_xact_lock(hashtext('app-stats'), hashtext(id))
     from jsonb_array_elements_text(cast(? as jsonb)) as id order by hashtext(id)`,
    [JSON.stringify(ids)],
  );
}

const NIGHTLY_BATCH = 500;

/**
 * Every app's counters from its events, a batch of apps per transaction (each app under its
 * roll-up lock, taken in one order), whatever the roll-up jobs did or missed. Returns how many
 * apps' counters were wrong.
 */
export async function recomputeAllAppStats(em: EntityManager): Promise<number> {
  let repaired = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const ids = (await em.execute<{ id: string }[]>('select id from apps where id > ? order by id limit ?', [after, NIGHTLY_BATCH])).map((row) => row.id);
    if (ids.length === 0) return repaired;
    repaired += await em.transactional(async (tx) => {
      await lockApps(tx, ids);
      const moved = await rollUp(tx, 'a.id in (select cast(id as uuid) from jsonb_array_elements_text(cast(? as jsonb)) as id)', JSON.stringify(ids));
      return moved + (await recountReviewDays(tx, ids));
    });
    repaired += await repairActivity(em, ids);
    after = ids.at(-1)!;
  }
}

/** Counts public apps (APPROVED, owner not suspended), per category (all ten rows always exist). */
export async function recomputeCategoryCounts(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtext('category-counts'))`);
    const changed = await tx.execute<{ category: string }[]>(
      `update category_counts c set app_count = coalesce(n.count, 0), updated_at = now()
       from category_counts c2
       left join (select a.category, count(*)::int as count
                  from apps a ${OWNER_JOINS}
                  where ${VISIBLE}
                  group by a.category) n on n.category = c2.category
       where c.category = c2.category and c.app_count is distinct from coalesce(n.count, 0)
       returning c.category`,
    );
    if (changed.length > 0) await bumpCatalogueVersion(tx);
  });
}

/**
 * Call inside the transaction that appended an install or changed a review. Roll-ups coalesce per
 * app: the queue keeps one waiting job per app (policy 'short', keyed by the app), deferred by a
 * second so a burst joins it, and a send that finds one waiting adds nothing. The shared lock makes
 * that safe: the waiting roll-up cannot take its exclusive lock, and so cannot count, before this
 * transaction commits.
 */
export async function enqueueAppStats(jobs: JobQueue, tx: EntityManager, appId: string): Promise<void> {
  await tx.execute(`select pg_advisory_xact_lock_shared(${APP_STATS_LOCK})`, [appId]);
  await jobs.send(tx, APP_STATS_QUEUE, { appId }, { singletonKey: appId, startAfter: ROLL_UP_DELAY_SECONDS });
}

/** How long a roll-up waits for more events to join it. */
export const ROLL_UP_DELAY_SECONDS = 1;

/**
 * Call first in a transaction that appends installs. Installs arrive by the thousand across many
 * apps, so they share one roll-up instead of one per app: the queue keeps one waiting job (a
 * constant singleton key), deferred by a second, and it recomputes every app with installs past
 * its watermark. The shared lock, held from before the insert to the commit, lets the roll-up see
 * exactly where the committed installs end (`rollUpNewInstalls`).
 */
export async function enqueueInstallRollUp(jobs: JobQueue, tx: EntityManager): Promise<void> {
  await tx.execute(`select pg_advisory_xact_lock_shared(${INSTALLS_LOCK})`);
  await jobs.send(tx, INSTALLS_ROLL_UP_QUEUE, {}, { singletonKey: 'installs', startAfter: ROLL_UP_DELAY_SECONDS });
}

/**
 * Recomputes the counters of every app with installs or install events (uninstalls, reinstalls)
 * since the last run. First, briefly under the exclusive lock (no install transaction in flight),
 * the newest install and event ids: every one up to them has committed, and any later one gets a
 * higher id. Then those apps are rolled up under their own locks, their activity (active installs,
 * uninstalls, days) is added, and the watermarks move to those ids. Returns how many apps' counters moved.
 */
export async function rollUpNewInstalls(em: EntityManager): Promise<number> {
  const newest = await em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(${INSTALLS_LOCK})`);
    const [row] = await tx.execute<{ installs: string; events: string }[]>(
      'select (select coalesce(max(id), 0) from installs) as installs, (select coalesce(max(id), 0) from install_events) as events',
    );
    return row!;
  });
  return em.transactional(async (tx) => {
    const marks = await lockWatermarks(tx);
    if (BigInt(newest.installs) <= BigInt(marks.installs) && BigInt(newest.events) <= BigInt(marks.events)) return 0;
    const installs = { after: marks.installs, upTo: newest.installs };
    const events = { after: marks.events, upTo: newest.events };
    const active = await appsWithActivity(tx, installs, events);
    await lockApps(tx, active);
    const ids = (
      await tx.execute<{ app_id: string }[]>('select distinct app_id from installs where id > ? and id <= ?', [installs.after, installs.upTo])
    ).map((row) => row.app_id);
    const changed = ids.length > 0
      ? await rollUp(tx, 'a.id in (select cast(id as uuid) from jsonb_array_elements_text(cast(? as jsonb)) as id)', JSON.stringify(ids))
      : 0;
    const moved = await addActivity(tx, installs, events);
    // Active installs order the public list too.
    if (moved > 0 && changed === 0) await bumpCatalogueVersion(tx);
    await tx.execute(
      `update stats_watermarks set last_id = case name when 'installs' then ?::bigint else ?::bigint end, updated_at = now()
       where name in ('installs', 'install_events')`,
      [newest.installs, newest.events],
    );
    return Math.max(changed, moved);
  });
}

/** Locks both watermark rows (always in this order, so a roll-up and a repair wait for each other) and reads them. */
async function lockWatermarks(tx: EntityManager): Promise<{ installs: string; events: string }> {
  const rows = await tx.execute<{ name: string; last_id: string }[]>(
    `select name, last_id from stats_watermarks where name in ('install_events', 'installs') order by name for update`,
  );
  const mark = (name: string) => rows.find((row) => row.name === name)?.last_id ?? '0';
  return { installs: mark('installs'), events: mark('install_events') };
}

/**
 * The nightly repair of active installs, uninstalls and install days for a batch of apps: recounted
 * from every install and event up to the watermarks, which it holds meanwhile (the roll-up adds only
 * what lies past them). Returns how many apps had a wrong figure.
 */
async function repairActivity(em: EntityManager, ids: string[]): Promise<number> {
  return em.transactional(async (tx) => {
    const marks = await lockWatermarks(tx);
    await lockApps(tx, ids);
    const repaired = await recountActivity(tx, ids, marks.installs, marks.events);
    if (repaired > 0) await bumpCatalogueVersion(tx);
    return repaired;
  });
}

/** Call inside the transaction that changed which apps are publicly visible. */
export const enqueueCategoryCounts = (jobs: JobQueue, em: EntityManager) => jobs.send(em, CATEGORY_COUNTS_QUEUE, {});
