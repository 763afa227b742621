import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../../lib/job-queue.ts';
import { Admin } from '../admin-accounts/admin.entity.ts';
import { notifyAdminDigest } from './notifications.service.ts';

/**
 * Every enabled admin gets a digest of what is past its review target (developers waiting over 24 hours,
 * apps over 48). A day with nothing overdue sends nothing; the message id names the admin and the
 * day, so a rerun never sends a second digest. Returns how many admins were considered.
 */
export async function enqueueAdminDigests(
  { em, jobs }: { em: EntityManager; jobs: JobQueue },
  day = new Date().toISOString().slice(0, 10),
): Promise<number> {
  return em.fork().transactional(async (tx) => {
    const admins = await tx.find(Admin, { disabledAt: null }, { fields: ['id'] });
    for (const admin of admins) await notifyAdminDigest(jobs, tx, admin.id, day);
    return admins.length;
  });
}
