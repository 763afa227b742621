import type { EntityManager } from '@mikro-orm/postgresql';
import { queueHandle, type JobQueue } from '../../lib/job-queue.ts';
import { executeNamed, type SqlTarget } from '../../lib/named-sql.ts';
import { bumpCatalogueVersion } from '../catalogue/catalogue-version.ts';
import { OWNER_JOINS, VISIBLE } from '../catalogue/catalogue-rows.ts';
import { addActivity, recountActivity, recountReviewDays, type EventRange } from './daily-stats.ts';
// Raw SQL here is batch work (D106): roll-ups recount counters set-wise under advisory locks.

/**
 * Counters are never UPDATEd in place by requests: installs and reviews are appended as event
 * rows, and the roll-ups here bring the narrow stats rows up to date from them. Reviews roll up
 * per app, recounted under a per-app advisory lock, so the last writer always counts every
 * committed review; installs, far more numerous, share one roll-up that adds the installs past a
 * watermark to their apps' counters. Counters do not move the catalogue version: the public
 * catalogue's caches follow `app_stats.counted_xid` instead (`catalogue/counter-changes.ts`).
 */
export const appStatsJobs = queueHandle<{ appId: string }>('stats.app');
export const categoryCountsJobs = queueHandle<Record<string, never>>('stats.categories');
export const installsRollUpJobs = queueHandle<Record<string, never>>('stats.installs');
export const APP_STATS_QUEUE = appStatsJobs.name;
export const CATEGORY_COUNTS_QUEUE = categoryCountsJobs.name;
export const NIGHTLY_STATS_QUEUE = 'stats.nightly';
export const INSTALLS_ROLL_UP_QUEUE = installsRollUpJobs.name;

/** The per-app lock: event writers take it shared, a roll-up exclusive. */
const APP_STATS_LOCK = `hashtext('app-stats'), hashtext(:appId)`;

/**
 * The lock install transactions take shared and the installs roll-up exclusive, to see where they
 * end. `lock_install_batch` takes it under the same key (its migration holds a copy, D189, D222).
 */
const INSTALLS_LOCK = `hashtext('install-roll-up')`;

/** The review counters of `a` (apps), recounted from the visible reviews. */
const REVIEW_COUNTS = `lateral (select count(*)::int as review_count, coalesce(sum(rating), 0)::int as rating_sum
                     from reviews where app_id = a.id and not hidden) r`;
const AVERAGE = 'case when r.review_count = 0 then 0 else round(r.rating_sum::numeric / r.review_count, 2) end';

/** Recounts one app's review counters. */
async function rollUpReviews(tx: EntityManager, appId: string): Promise<void> {
  await executeNamed(
    tx,
    `update app_stats s set review_count = r.review_count, rating_sum = r.rating_sum, average_rating = ${AVERAGE}, updated_at = now()
     from apps a, ${REVIEW_COUNTS}
     where s.app_id = a.id and a.id = :appId
       and (s.review_count, s.rating_sum, s.average_rating) is distinct from (r.review_count, r.rating_sum, ${AVERAGE})`,
    { appId },
  );
}

/**
 * Recomputes one app's review counters. The exclusive lock waits for every transaction that
 * changed a review and enqueued (or joined) a roll-up to commit, so this count includes all of them.
 */
export async function recomputeAppStats(em: EntityManager, appId: string): Promise<void> {
  await em.transactional(async (tx) => {
    await executeNamed(tx, `select pg_advisory_xact_lock(${APP_STATS_LOCK})`, { appId });
    await rollUpReviews(tx, appId);
    await recountReviewDays(tx, [appId]);
  });
}

/**
 * Apps per transaction of the nightly recompute. Each holds one advisory lock per app until it
 * commits, and PostgreSQL's lock table is shared by every connection (`max_locks_per_transaction`
 * × connections): a transaction must never take locks in proportion to the catalogue.
 */
const NIGHTLY_BATCH = 100;

/**
 * Every app's counters from its events, a batch of apps per transaction, whatever the roll-up
 * jobs did or missed: installs up to the watermark (held shared, so the installs roll-up cannot
 * move it meanwhile; later installs are the roll-up's), reviews under each app's roll-up lock,
 * taken in one order. Returns how many apps' counters were wrong.
 */
export async function recomputeAllAppStats(em: EntityManager): Promise<number> {
  let repaired = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const ids = (
      await executeNamed<{ id: string }>(em, 'select id from apps where id > :after order by id limit :limit', { after, limit: NIGHTLY_BATCH })
    ).map((row) => row.id);
    if (ids.length === 0) return repaired;
    repaired += await em.transactional(async (tx) => {
      const [mark] = await executeNamed<{ last_id: string }>(tx, `select last_id from stats_watermarks where name = 'installs' for share`, {});
      await executeNamed(
        tx,
        `select pg_advisory_xact_lock(hashtext('app-stats'), hashtext(id))
         from jsonb_array_elements_text(cast(:ids as jsonb)) as id order by hashtext(id)`,
        { ids: JSON.stringify(ids) },
      );
      // The batch as an array: the planner reads its apps by key. As a subquery of the JSON list it
      // recounted every app of the catalogue for each batch and kept a hundred (D233).
      const changed = await executeNamed<{ app_id: string }>(
        tx,
        `update app_stats s set install_count = n.install_count, review_count = r.review_count, rating_sum = r.rating_sum,
           average_rating = ${AVERAGE}, updated_at = now()
         from apps a, ${REVIEW_COUNTS},
              lateral (select count(*)::int as install_count from installs i where i.app_id = a.id and i.counted and i.id <= :lastId) n
         where s.app_id = a.id and a.id = any(:appIds::uuid[])
           and (s.install_count, s.review_count, s.rating_sum, s.average_rating)
             is distinct from (n.install_count, r.review_count, r.rating_sum, ${AVERAGE})
         returning s.app_id`,
        { lastId: mark?.last_id ?? 0, appIds: ids },
      );
      return changed.length + (await recountReviewDays(tx, ids));
    });
    repaired += await repairActivity(em, ids);
    after = ids.at(-1)!;
  }
}

/** Counts public apps (APPROVED, owner not suspended), per category (all ten rows always exist). */
export async function recomputeCategoryCounts(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    await executeNamed(tx, `select pg_advisory_xact_lock(hashtext('category-counts'))`, {});
    const changed = await executeNamed<{ category: string }>(
      tx,
      `update category_counts c set app_count = coalesce(n.count, 0), updated_at = now()
       from category_counts c2
       left join (select a.category, count(*)::int as count
                  from apps a ${OWNER_JOINS}
                  where ${VISIBLE}
                  group by a.category) n on n.category = c2.category
       where c.category = c2.category and c.app_count is distinct from coalesce(n.count, 0)
       returning c.category`,
      {},
    );
    if (changed.length > 0) await bumpCatalogueVersion(tx);
  });
}

/**
 * Call inside the transaction that appended an install or changed a review. Roll-ups coalesce per
 * app: the queue keeps one waiting job per app (policy 'short', keyed by the app), deferred (by a
 * second unless STATS_ROLL_UP_DELAY_SECONDS says otherwise) so a burst joins it, and a send that finds one waiting adds nothing. The shared lock makes
 * that safe: the waiting roll-up cannot take its exclusive lock, and so cannot count, before this
 * transaction commits.
 */
export async function enqueueAppStats(jobs: JobQueue, tx: EntityManager, appId: string): Promise<void> {
  await executeNamed(tx, `select pg_advisory_xact_lock_shared(${APP_STATS_LOCK})`, { appId });
  await jobs.send(tx, appStatsJobs, { appId }, { singletonKey: appId, startAfter: rollUpDelaySeconds });
}

/** How long a roll-up waits for more events to join it (STATS_ROLL_UP_DELAY_SECONDS), handed over once at start-up. */
let rollUpDelaySeconds = 1;

export function useRollUpDelay(seconds: number): void {
  rollUpDelaySeconds = seconds;
}

/** Held from before a transaction's first install to its commit, so the roll-up sees where committed installs end. */
export async function holdInstallsWatermark(tx: SqlTarget): Promise<void> {
  await executeNamed(tx, `select pg_advisory_xact_lock_shared(${INSTALLS_LOCK})`, {});
}

/**
 * Installs and uninstalls arrive by the thousand across many apps, so they share one roll-up
 * instead of one per app: the queue keeps one waiting job (a constant singleton key), deferred like
 * the per-app one, and it recomputes every app with installs past its watermark. For a transaction
 * that appends install events outside an install batch (an uninstall, a repeat install's reactivation): after its events, under
 * the watermark's lock taken before them (`holdInstallsWatermark`), sends the roll-up unless one
 * waits already, not yet started: that one takes the watermark's lock only after this commits, so
 * it counts these events (as D189 does for install batches). Sending every time had each uninstall
 * insert the singleton job row, and a row another transaction has inserted and not yet committed
 * holds every other sender (installs included) until that commits (D216).
 */
export async function sendInstallRollUpUnlessWaiting(jobs: JobQueue, tx: SqlTarget): Promise<void> {
  // pg-boss's own row, asked as `lock_install_batch` asks it (its migration, D189, D222).
  const [row] = await executeNamed<{ waiting: boolean }>(
    tx,
    `select exists (select 1 from pgboss.job j
                    where j.name = :queue and j.policy = 'short' and j.state = 'created' and coalesce(j.singleton_key, '') = 'installs') as waiting`,
    { queue: installsRollUpJobs.name },
  );
  if (!row!.waiting) await sendInstallRollUp(jobs, tx);
}

/**
 * The send alone, for a transaction that holds the watermark's lock already and found no roll-up
 * waiting (`lock_install_batch` takes the lock and looks, D189, D222).
 */
export async function sendInstallRollUp(jobs: JobQueue, tx: SqlTarget): Promise<void> {
  await jobs.send(tx, installsRollUpJobs, {}, { singletonKey: 'installs', startAfter: rollUpDelaySeconds });
}

/** Install ids a roll-up transaction covers at most, so a backlog of millions is worked off in steps of bounded size. */
const INSTALLS_PER_STEP = 50_000;

/**
 * Adds the installs and install events (uninstalls, reinstalls) since the last run to their apps'
 * counters and day rows. First, briefly under the exclusive lock (no install transaction in flight),
 * the newest install and event ids: every one up to them has committed, and any later one gets a
 * higher id. Then, a bounded range of ids per transaction, their contributions are added and the
 * watermarks move past them: the cost is the new rows, never an app's whole history, and the only
 * locks are the rows updated (row locks live in the rows, not in PostgreSQL's shared lock table).
 * Returns how many apps' counters moved.
 */
export async function rollUpNewInstalls(em: EntityManager): Promise<number> {
  const newest = await em.transactional(async (tx) => {
    await executeNamed(tx, `select pg_advisory_xact_lock(${INSTALLS_LOCK})`, {});
    const [row] = await executeNamed<{ installs: string; events: string }>(
      tx,
      'select (select coalesce(max(id), 0) from installs) as installs, (select coalesce(max(id), 0) from install_events) as events',
      {},
    );
    return { installs: BigInt(row!.installs), events: BigInt(row!.events) };
  });
  /** From a watermark towards the newest id, at most INSTALLS_PER_STEP ids (an empty range once caught up). */
  const step = (after: string, newestId: bigint): EventRange => {
    const from = BigInt(after);
    const upTo = newestId <= from ? from : newestId - from < BigInt(INSTALLS_PER_STEP) ? newestId : from + BigInt(INSTALLS_PER_STEP);
    return { after, upTo: upTo.toString() };
  };
  let moved = 0;
  for (;;) {
    const changedInStep = await em.transactional(async (tx) => {
      const marks = await lockWatermarks(tx);
      if (newest.installs <= BigInt(marks.installs) && newest.events <= BigInt(marks.events)) return undefined;
      const installs = step(marks.installs, newest.installs);
      const events = step(marks.events, newest.events);
      const changed = await addActivity(tx, installs, events);
      await executeNamed(
        tx,
        `update stats_watermarks set last_id = case name when 'installs' then :installs::bigint else :events::bigint end, updated_at = now()
         where name in ('installs', 'install_events')`,
        { installs: installs.upTo, events: events.upTo },
      );
      return changed;
    });
    if (changedInStep === undefined) return moved;
    moved += changedInStep;
  }
}

/** Locks both watermark rows (always in this order, so a roll-up and a repair wait for each other) and reads them. */
async function lockWatermarks(tx: EntityManager): Promise<{ installs: string; events: string }> {
  const rows = await executeNamed<{ name: string; last_id: string }>(
    tx,
    `select name, last_id from stats_watermarks where name in ('install_events', 'installs') order by name for update`,
    {},
  );
  const mark = (name: string) => rows.find((row) => row.name === name)?.last_id ?? '0';
  return { installs: mark('installs'), events: mark('install_events') };
}

/**
 * The nightly repair of active installs, uninstalls and install days for a batch of apps (at most
 * NIGHTLY_BATCH, so its per-app locks stay bounded): recounted from every install and event up to
 * the watermarks, which it holds meanwhile (the roll-up adds only what lies past them). Returns how
 * many apps had a wrong figure.
 */
async function repairActivity(em: EntityManager, ids: string[]): Promise<number> {
  return em.transactional(async (tx) => {
    const marks = await lockWatermarks(tx);
    await executeNamed(
      tx,
      `select pg_advisory_xact_lock(hashtext('app-stats'), hashtext(id))
       from jsonb_array_elements_text(cast(:ids as jsonb)) as id order by hashtext(id)`,
      { ids: JSON.stringify(ids) },
    );
    return recountActivity(tx, ids, marks.installs, marks.events);
  });
}

/** Call inside the transaction that changed which apps are publicly visible. */
export const enqueueCategoryCounts = (jobs: JobQueue, em: EntityManager) => jobs.send(em, categoryCountsJobs, {});
