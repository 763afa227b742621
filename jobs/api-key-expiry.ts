import type { AppContext } from '../src/app-context.ts';
import { API_KEY_EXPIRING_PREFIX, notifyApiKeyExpiring } from '../src/modules/notifications/notifications.service.ts';
import { emitApiKeyExpiring } from '../src/modules/webhooks/webhook-events.ts';
import { defineQueue } from './queues.ts';

/**
 * Hourly: every active key of a verified developer that expires within 7 days and has not had
 * its reminder gets one. The reminder's message id is the key's, so the mail queue and the
 * `emails` record keep it to one per key however often the scan runs.
 */
export const API_KEY_EXPIRY_QUEUE = 'api-keys.expiry-scan';
export const REMIND_DAYS_BEFORE = 7;

export async function scanExpiringKeys(ctx: AppContext): Promise<number> {
  return ctx.orm.em.fork().transactional(async (tx) => {
    const keys = await tx.execute<{ id: string; developer_id: string }[]>(
      `select k.id, k.developer_id from api_keys k join developers d on d.id = k.developer_id
       where k.revoked_at is null and d.status = 'VERIFIED'
         and k.expires_at > now() and k.expires_at <= now() + make_interval(days => ?)
         and not exists (select 1 from emails e where e.message_id = ? || k.id::text)`,
      [REMIND_DAYS_BEFORE, API_KEY_EXPIRING_PREFIX],
    );
    for (const key of keys) {
      await notifyApiKeyExpiring(ctx.jobs, tx, key.id);
      await emitApiKeyExpiring(ctx.jobs, tx, key.id, key.developer_id);
    }
    return keys.length;
  });
}

export const apiKeyExpiryQueue = defineQueue<Record<string, never>>({
  name: API_KEY_EXPIRY_QUEUE,
  // A missed or failed scan is simply the next hour's work.
  options: { retryLimit: 2, retryDelay: 60, expireInSeconds: 300, policy: 'singleton' },
  work: { batchSize: 1, localConcurrency: 1 },
  schedule: '5 * * * *',
  async handler(ctx) {
    await scanExpiringKeys(ctx);
  },
});
