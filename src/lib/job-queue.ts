import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type PgBoss, type SendOptions } from 'pg-boss';

/**
 * Enqueues a job through the caller's EntityManager, so inside `em.transactional` the job
 * commits or rolls back with the change that caused it.
 */
export interface JobQueue {
  send(em: EntityManager, queue: string, data: object, options?: SendOptions): Promise<void>;
  /** Many jobs of one queue in one statement (a batch of installs enqueues one per app). */
  sendMany(em: EntityManager, queue: string, data: object[]): Promise<void>;
}

export function createJobQueue(boss: PgBoss): JobQueue {
  return {
    async send(em, queue, data, options = {}) {
      await boss.send(queue, data, { ...options, db: fromKysely(em.getKysely()) });
    },
    async sendMany(em, queue, data) {
      if (data.length > 0) await boss.insert(queue, data.map((item) => ({ data: item })), { db: fromKysely(em.getKysely()) });
    },
  };
}
