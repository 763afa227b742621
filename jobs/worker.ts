import type { AppContext } from '../src/app-context.ts';
import { queues } from './registry.ts';

/** Attaches a handler to every declared queue. Called by the `all` and `worker` roles. */
export async function startWorkers(ctx: AppContext): Promise<void> {
  const log = ctx.logger.child({ component: 'worker' });
  for (const queue of queues) {
    await ctx.boss.work(queue.name, { ...queue.work, pollingIntervalSeconds: 2 }, async (jobs) => {
      await queue.handler(ctx, jobs);
    });
    log.info('worker started', { queue: queue.name });
  }
}
