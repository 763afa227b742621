import type { EntityManager } from '@mikro-orm/postgresql';
import { fromKysely, type PgBoss, type SendOptions } from 'pg-boss';
import type { SqlTarget } from './named-sql.ts';

/**
 * A queue's name and the payload its jobs carry, declared once beside the work: a send with the
 * wrong payload does not compile. `payload` is never set; it only carries the type.
 */
export interface QueueHandle<Payload extends object> {
  readonly name: string;
  readonly payload?: Payload;
}

export const queueHandle = <Payload extends object>(name: string): QueueHandle<Payload> => ({ name });

/**
 * Enqueues a job through the caller's EntityManager (or transaction of Bun's client), so inside a
 * transaction the job commits or rolls back with the change that caused it.
 */
export interface JobQueue {
  send<Payload extends object>(target: SqlTarget, queue: QueueHandle<Payload>, data: NoInfer<Payload>, options?: SendOptions): Promise<void>;
  /** Moves one dead-lettered job back to the queue it came from, inside the caller's transaction; false when it is gone. */
  redrive(em: EntityManager, deadLetterQueue: string, jobId: string): Promise<boolean>;
}

export function createJobQueue(boss: PgBoss): JobQueue {
  return {
    async send(target, queue, data, options = {}) {
      await boss.send(queue.name, data, { ...options, db: 'executeSql' in target ? target : fromKysely(target.getKysely()) });
    },
    async redrive(em, deadLetterQueue, jobId) {
      return (await boss.redrive(deadLetterQueue, { ids: [jobId], limit: 1, db: fromKysely(em.getKysely()) })) === 1;
    },
  };
}
