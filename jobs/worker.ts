import type { AppContext } from '../src/app-context.ts';
import { queues } from './registry.ts';

/** Attaches a handler to every declared queue. Called by the `all` and `worker` roles. */
export async function startWorkers(ctx: AppContext): Promise<void> {
  const log = ctx.logger.child({ component: 'worker' });
  for (const queue of queues) {
    // NOTIFY wakes the worker at once; the polls are the fallback, and a full batch means fetch again now.
    const polling = { pollingIntervalSeconds: 2, notifyPollingIntervalSeconds: 10, burstWhenBatchFull: true };
    await ctx.boss.work(queue.name, { ...queue.work, ...polling }, async (jobs) => {
      await queue.handler(ctx, jobs);
    });
    log.info('worker started', { queue: queue.name });
  }
}
