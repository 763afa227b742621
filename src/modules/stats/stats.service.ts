import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../../lib/job-queue.ts';
import { bumpCatalogueVersion } from '../catalogue/catalogue-version.ts';

/**
 * Counters are never UPDATEd in place by requests: installs and reviews are appended as event
 * rows, and the roll-ups here recompute the narrow stats rows from them, under a per-app
 * advisory lock, so the last writer always counts every committed event.
 */
export const APP_STATS_QUEUE = 'stats.app';
export const CATEGORY_COUNTS_QUEUE = 'stats.categories';

export async function recomputeAppStats(em: EntityManager, appId: string): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtext('app-stats'), hashtext(?))`, [appId]);
    const changed = await tx.execute<{ app_id: string }[]>(
      `insert into app_stats (app_id, install_count, review_count, rating_sum, average_rating, updated_at)
       select a.id,
              (select count(*) from installs i where i.app_id = a.id and i.counted),
              r.review_count, r.rating_sum,
              case when r.review_count = 0 then 0 else round(r.rating_sum::numeric / r.review_count, 2) end,
              now()
       from apps a,
            lateral (select count(*)::int as review_count, coalesce(sum(rating), 0)::int as rating_sum
                     from reviews where app_id = a.id and not hidden) r
       where a.id = ?
       on conflict (app_id) do update set
         install_count = excluded.install_count, review_count = excluded.review_count,
         rating_sum = excluded.rating_sum, average_rating = excluded.average_rating, updated_at = excluded.updated_at
       where (app_stats.install_count, app_stats.review_count, app_stats.rating_sum)
         is distinct from (excluded.install_count, excluded.review_count, excluded.rating_sum)
       returning app_id`,
      [appId],
    );
    // Only a counter that moved invalidates the public catalogue's cached responses.
    if (changed.length > 0) await bumpCatalogueVersion(tx);
  });
}

/** Counts APPROVED apps of developers who are not suspended, per category (all ten rows always exist). */
export async function recomputeCategoryCounts(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtext('category-counts'))`);
    const changed = await tx.execute<{ category: string }[]>(
      `update category_counts c set app_count = coalesce(n.count, 0), updated_at = now()
       from category_counts c2
       left join (select a.category, count(*)::int as count
                  from apps a join developers d on d.id = a.developer_id
                  where a.status = 'APPROVED' and d.status <> 'SUSPENDED'
                  group by a.category) n on n.category = c2.category
       where c.category = c2.category and c.app_count is distinct from coalesce(n.count, 0)
       returning c.category`,
    );
    if (changed.length > 0) await bumpCatalogueVersion(tx);
  });
}

/** Call inside the transaction that appended an install or changed a review. */
export const enqueueAppStats = (jobs: JobQueue, em: EntityManager, appId: string) => jobs.send(em, APP_STATS_QUEUE, { appId });

/** The same for several apps at once, in one statement (a batch of installs): one job per app, as `enqueueAppStats` enqueues. */
export const enqueueAppStatsForApps = (jobs: JobQueue, em: EntityManager, appIds: string[]) =>
  jobs.sendMany(em, APP_STATS_QUEUE, appIds.map((appId) => ({ appId })));

/** Call inside the transaction that changed which apps are publicly visible. */
export const enqueueCategoryCounts = (jobs: JobQueue, em: EntityManager) => jobs.send(em, CATEGORY_COUNTS_QUEUE, {});
