import type { QueueCatalog } from '../src/modules/queues/queues.service.ts';
import { PGBOSS_SCHEMA } from './queues.ts';
import { deadLetterQueues } from './registry.ts';

/** Every registered queue and its dead-letter queue, as the admin console's Jobs page lists them. */
export const queueCatalog = (): QueueCatalog => ({
  schema: PGBOSS_SCHEMA,
  queues: deadLetterQueues.map(({ queue, deadLetter }) => ({ name: queue, deadLetter })),
});
