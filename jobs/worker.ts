import type { AppContext } from '../src/app-context.ts';
import { isDatabaseOutage } from '../src/lib/database-errors.ts';
import type { Logger } from '../src/lib/logger.ts';
import { queues } from './registry.ts';

/** How long a handler that met a database outage keeps trying, well inside every queue's expiry. */
const OUTAGE_RETRY_MS = 30_000;

/**
 * Runs a batch again once PostgreSQL answers, when it failed because the database was gone (a
 * restart, a failover). Otherwise pg-boss could not even record the failure, and the jobs would
 * sit 'active' until they expire. Handlers are idempotent, so running one again is safe.
 */
async function throughOutages(work: () => Promise<void>, log: Logger): Promise<void> {
  const deadline = Date.now() + OUTAGE_RETRY_MS;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseOutage(error) || Date.now() > deadline) throw error;
      log.warn('database unavailable during a job; trying again', { error: (error as Error).message });
      await Bun.sleep(1_000);
    }
  }
}

/** Attaches a handler to every declared queue. Called by the `all` and `worker` roles. */
export async function startWorkers(ctx: AppContext): Promise<void> {
  const log = ctx.logger.child({ component: 'worker' });
  for (const queue of queues) {
    // NOTIFY wakes the worker for a new job at once; retries and jobs whose start was deferred
    // send no NOTIFY, so the poll (every 2 s unless the queue says otherwise) is what picks them up.
    // A full batch fetches again at once.
    const { pollingIntervalSeconds = 2, ...work } = queue.work;
    const polling = { pollingIntervalSeconds, notifyPollingIntervalSeconds: pollingIntervalSeconds, burstWhenBatchFull: true };
    await ctx.boss.work(queue.name, { ...work, ...polling }, async (jobs) => {
      await throughOutages(() => queue.handler(ctx, jobs), log);
    });
    // Registering a schedule is an upsert, and pg-boss sends one job per tick across all processes.
    if (queue.schedule) await ctx.boss.schedule(queue.name, queue.schedule, {}, { tz: 'UTC' });
    log.info('worker started', { queue: queue.name, schedule: queue.schedule });
  }
}
