import { enqueueAdminDigests } from '../src/modules/notifications/admin-digest.service.ts';
import { defineQueue } from './queues.ts';

/** Daily at 07:00 UTC: the admins' digest of overdue reviews (`enqueueAdminDigests`). */
export const ADMIN_DIGEST_QUEUE = 'admins.daily-digest';

export const adminDigestQueue = defineQueue<Record<string, never>>({
  name: ADMIN_DIGEST_QUEUE,
  options: { retryLimit: 3, retryDelay: 300, expireInSeconds: 300, policy: 'singleton' },
  work: { batchSize: 1, localConcurrency: 1 },
  schedule: '0 7 * * *',
  async handler(ctx) {
    await enqueueAdminDigests({ em: ctx.orm.em, jobs: ctx.jobs });
  },
});
