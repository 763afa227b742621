import {
  APP_STATS_QUEUE,
  CATEGORY_COUNTS_QUEUE,
  recomputeAppStats,
  recomputeCategoryCounts,
} from '../src/modules/stats/stats.service.ts';
import { defineQueue } from './queues.ts';

/** The counter roll-ups (`src/modules/stats`): a batch recomputes each app once. */
const retries = { retryLimit: 8, retryDelay: 1, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 60 };

export const appStatsQueue = defineQueue<{ appId: string }>({
  name: APP_STATS_QUEUE,
  options: { ...retries, deadLetter: `${APP_STATS_QUEUE}.dead` },
  work: { batchSize: 100, localConcurrency: 1 },
  async handler(ctx, jobs) {
    for (const appId of new Set(jobs.map((job) => job.data.appId))) await recomputeAppStats(ctx.orm.em.fork(), appId);
  },
});

export const categoryCountsQueue = defineQueue<Record<string, never>>({
  name: CATEGORY_COUNTS_QUEUE,
  options: { ...retries, deadLetter: `${CATEGORY_COUNTS_QUEUE}.dead` },
  work: { batchSize: 50, localConcurrency: 1 },
  async handler(ctx) {
    await recomputeCategoryCounts(ctx.orm.em.fork());
  },
});
