import type { QueueCatalog } from '../src/modules/queues/queues.service.ts';
import { PGBOSS_SCHEMA } from './queues.ts';
import { queues } from './registry.ts';

/** Every registered queue and its dead-letter queue, as the admin console's Jobs page lists them. */
export const queueCatalog = (): QueueCatalog => ({
  schema: PGBOSS_SCHEMA,
  queues: queues.map((queue) => ({ name: queue.name, deadLetter: queue.options.deadLetter ?? null })),
});
