import type { QueueRegistry } from '../src/modules/queues/queues.service.ts';
import { deadLetterOf, PGBOSS_SCHEMA, type QueueDefinition } from './queues.ts';
import { appStatsQueue, categoryCountsQueue, installsRollUpQueue, nightlyStatsQueue } from './stats.ts';
import { assetChecksQueue } from './asset-checks.ts';
import { mailQueue } from './mail.ts';
import { apiKeyExpiryQueue } from './api-key-expiry.ts';
import { adminDigestQueue } from './admin-digest.ts';
import { retentionQueue } from './retention.ts';
import { webhookDeliveryQueue, webhookSweepQueue } from './webhooks.ts';

/** All queues, in the order they are declared. Each feature's job module adds its queue here. */
export const queues: QueueDefinition<any>[] = [
  appStatsQueue,
  installsRollUpQueue,
  categoryCountsQueue,
  nightlyStatsQueue,
  assetChecksQueue,
  mailQueue,
  apiKeyExpiryQueue,
  adminDigestQueue,
  retentionQueue,
  webhookDeliveryQueue,
  webhookSweepQueue,
];

/** Where each queue's jobs land after their last retry (read them with pg-boss's `findJobs`, redrive with `redrive`). */
export const deadLetterQueues = queues.map((queue) => ({ queue: queue.name, deadLetter: deadLetterOf(queue.name) }));

/** Every registered queue and its dead-letter queue, as the admin console's Jobs page and the metrics list them. */
export const queueRegistry = (): QueueRegistry => ({
  schema: PGBOSS_SCHEMA,
  queues: deadLetterQueues.map(({ queue, deadLetter }) => ({ name: queue, deadLetter })),
});
