import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { API_KEY_EXPIRING_PREFIX, notifyApiKeyExpiring } from '../notifications/notifications.service.ts';
import { emitApiKeyExpiring } from '../webhooks/webhook-events.ts';

export const REMIND_DAYS_BEFORE = 7;

/**
 * Every active key of a verified developer that expires within 7 days and has not had its
 * reminder gets one. The reminder's message id is the key's, so the mail queue and the `emails`
 * record keep it to one per key however often the scan runs. Returns how many keys were reminded.
 */
export async function scanExpiringKeys({ em, jobs }: { em: EntityManager; jobs: JobQueue }): Promise<number> {
  return em.fork().transactional(async (tx) => {
    // Raw SQL: a batch scan across developers, run hourly.
    const keys = await executeNamed<{ id: string; developer_id: string }>(
      tx,
      `select k.id, k.developer_id from api_keys k join developers d on d.id = k.developer_id
       where k.revoked_at is null and d.status = 'VERIFIED'
         and k.expires_at > now() and k.expires_at <= now() + make_interval(days => :days)
         and not exists (select 1 from emails e where e.message_id = :prefix || k.id::text)`,
      { days: REMIND_DAYS_BEFORE, prefix: API_KEY_EXPIRING_PREFIX },
    );
    for (const key of keys) {
      await notifyApiKeyExpiring(jobs, tx, key.id);
      await emitApiKeyExpiring(jobs, tx, key.id, key.developer_id);
    }
    return keys.length;
  });
}
