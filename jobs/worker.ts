import type { AppContext } from '../src/app-context.ts';
import { queues } from './registry.ts';

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
      await queue.handler(ctx, jobs);
    });
    // Registering a schedule is an upsert, and pg-boss sends one job per tick across all processes.
    if (queue.schedule) await ctx.boss.schedule(queue.name, queue.schedule, {}, { tz: 'UTC' });
    log.info('worker started', { queue: queue.name, schedule: queue.schedule });
  }
}
