import {
  appStatsJobs,
  categoryCountsJobs,
  installsRollUpJobs,
  NIGHTLY_STATS_QUEUE,
  recomputeAllAppStats,
  recomputeAppStats,
  recomputeCategoryCounts,
  rollUpNewInstalls,
} from '../src/modules/stats/stats.service.ts';
import { defineQueue } from './queues.ts';

/**
 * The counter roll-ups (`src/modules/stats`): a batch recomputes each app once. A roll-up whose
 * failure could not be recorded (PostgreSQL went away under it) stops beating and is retried 10 s
 * later, not after its whole 60 s expiry: counters lag an outage by seconds, not a minute.
 */
const retries = { retryLimit: 8, retryDelay: 1, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 60, heartbeatSeconds: 10 };

export const appStatsQueue = defineQueue({
  queue: appStatsJobs,
  // 'short' keeps one waiting roll-up per app (the singleton key): a burst of installs joins it.
  options: { ...retries, policy: 'short' },
  // Roll-ups are deferred (STATS_ROLL_UP_DELAY_SECONDS, see enqueueAppStats), so the poll is what starts them.
  work: { batchSize: 100, localConcurrency: 1, pollingIntervalSeconds: 1 },
  async handler(ctx, jobs) {
    for (const appId of new Set(jobs.map((job) => job.data.appId))) await recomputeAppStats(ctx.orm.em.fork(), appId);
  },
});

export const installsRollUpQueue = defineQueue({
  queue: installsRollUpJobs,
  // 'short' keeps one waiting roll-up (the constant singleton key): every install batch joins it.
  options: { ...retries, policy: 'short' },
  work: { batchSize: 10, localConcurrency: 1, pollingIntervalSeconds: 1 },
  async handler(ctx) {
    await rollUpNewInstalls(ctx.orm.em.fork());
  },
});

export const categoryCountsQueue = defineQueue({
  queue: categoryCountsJobs,
  options: retries,
  work: { batchSize: 50, localConcurrency: 1 },
  async handler(ctx) {
    await recomputeCategoryCounts(ctx.orm.em.fork());
  },
});

/** Nightly at 03:30 UTC: every counter recomputed from its events, so drift of any cause is repaired within a day. */
export const nightlyStatsQueue = defineQueue<Record<string, never>>({
  name: NIGHTLY_STATS_QUEUE,
  options: { retryLimit: 3, retryDelay: 300, expireInSeconds: 1_800, policy: 'singleton' },
  work: { batchSize: 1, localConcurrency: 1 },
  schedule: '30 3 * * *',
  async handler(ctx) {
    const repaired = await recomputeAllAppStats(ctx.orm.em.fork());
    await recomputeCategoryCounts(ctx.orm.em.fork());
    ctx.logger.info('nightly stats recompute', { repaired });
  },
});
