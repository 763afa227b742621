import type { AppContext } from '../src/app-context.ts';
import { notifyAdminDigest } from '../src/modules/notifications/notifications.service.ts';
import { defineQueue } from './queues.ts';

/**
 * Daily at 07:00 UTC: every admin gets a digest of what is past its review target (developers
 * waiting over 24 hours, apps over 48). A day with nothing overdue sends nothing; the message id
 * names the admin and the day, so a rerun never sends a second digest.
 */
export const ADMIN_DIGEST_QUEUE = 'admins.daily-digest';

export async function enqueueAdminDigests(ctx: AppContext, day = new Date().toISOString().slice(0, 10)): Promise<number> {
  return ctx.orm.em.fork().transactional(async (tx) => {
    const admins = await tx.execute<{ id: string }[]>('select id from admins');
    for (const admin of admins) await notifyAdminDigest(ctx.jobs, tx, admin.id, day);
    return admins.length;
  });
}

export const adminDigestQueue = defineQueue<Record<string, never>>({
  name: ADMIN_DIGEST_QUEUE,
  options: { retryLimit: 3, retryDelay: 300, expireInSeconds: 300, policy: 'singleton' },
  work: { batchSize: 1, localConcurrency: 1 },
  schedule: '0 7 * * *',
  async handler(ctx) {
    await enqueueAdminDigests(ctx);
  },
});
