import { attemptDelivery, requeueStaleDeliveries } from '../src/modules/webhooks/webhook-delivery.ts';
import { webhookDeliveryJobs } from '../src/modules/webhooks/webhook-events.ts';
import { defineQueue } from './queues.ts';

/**
 * Webhook deliveries (`src/modules/webhooks/webhook-delivery.ts`), one attempt per job. The
 * delivery schedule (backoff over 24 h and more) is the delivery's own: a failed attempt enqueues
 * the next one with `startAfter`. pg-boss's retries here only cover the worker failing (the
 * database unreachable while recording), and the delivery row's claim makes a repeated job harmless.
 */
export const webhookDeliveryQueue = defineQueue({
  queue: webhookDeliveryJobs,
  // An attempt takes at most 10 s of HTTP plus two short writes.
  options: { retryLimit: 5, retryDelay: 30, retryBackoff: true, retryDelayMax: 600, expireInSeconds: 60 },
  // One delivery per fetch, several at once: a slow receiver holds up only its own job. Each job is in
  // its developer's group (`enqueueDelivery`), and at most 2 of a group run at once across every
  // process, so one developer's slow receivers (pinged 40 times, say) leave the other workers free.
  work: { batchSize: 1, localConcurrency: 5, groupConcurrency: 2 },
  async handler(ctx, jobs) {
    for (const job of jobs) {
      await attemptDelivery(
        {
          em: ctx.orm.em.fork(),
          jobs: ctx.jobs,
          encryptionKeys: ctx.config.webhookEncryptionKeys,
          allowPrivate: ctx.config.allowPrivateFetch,
          timeoutSeconds: ctx.config.webhookTimeoutSeconds,
        },
        job.data.deliveryId,
      );
    }
  },
});

export const WEBHOOK_SWEEP_QUEUE = 'webhooks.sweep';

/** Every 5 minutes: deliveries overdue because their job was lost get a new one. */
export const webhookSweepQueue = defineQueue<Record<string, never>>({
  name: WEBHOOK_SWEEP_QUEUE,
  // A missed sweep is the next one's work.
  options: { retryLimit: 1, retryDelay: 60, expireInSeconds: 120, policy: 'singleton' },
  work: { batchSize: 1, localConcurrency: 1 },
  schedule: '*/5 * * * *',
  async handler(ctx) {
    await requeueStaleDeliveries({ em: ctx.orm.em.fork(), jobs: ctx.jobs });
  },
});
