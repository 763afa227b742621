import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type PgBoss, type SendOptions } from 'pg-boss';

/**
 * Enqueues a job through the caller's EntityManager, so inside `em.transactional` the job
 * commits or rolls back with the change that caused it.
 */
export interface JobQueue {
  send(em: EntityManager, queue: string, data: object, options?: SendOptions): Promise<void>;
  /** Moves one dead-lettered job back to the queue it came from, inside the caller's transaction; false when it is gone. */
  redrive(em: EntityManager, deadLetterQueue: string, jobId: string): Promise<boolean>;
}

export function createJobQueue(boss: PgBoss): JobQueue {
  return {
    async send(em, queue, data, options = {}) {
      await boss.send(queue, data, { ...options, db: fromKysely(em.getKysely()) });
    },
    async redrive(em, deadLetterQueue, jobId) {
      return (await boss.redrive(deadLetterQueue, { ids: [jobId], limit: 1, db: fromKysely(em.getKysely()) })) === 1;
    },
  };
}
