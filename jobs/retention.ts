import { applyRetention } from '../src/modules/retention/retention.service.ts';
import { defineQueue } from './queues.ts';

/** Hourly housekeeping (`src/modules/retention`): pg-boss sends one job per tick, whichever worker takes it. */
export const RETENTION_QUEUE = 'maintenance.retention';

export const retentionQueue = defineQueue<Record<string, never>>({
  name: RETENTION_QUEUE,
  // A failed run is simply the next hour's work.
  options: { retryLimit: 2, retryDelay: 60, expireInSeconds: 900, policy: 'singleton' },
  work: { batchSize: 1, localConcurrency: 1 },
  schedule: '23 * * * *',
  async handler(ctx) {
    const removed = await applyRetention(ctx.orm.em.fork(), ctx.config.retention);
    ctx.logger.info('retention applied', { removed });
  },
});
