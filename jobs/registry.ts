import type { QueueDefinition } from './queues.ts';
import { appStatsQueue, categoryCountsQueue } from './stats.ts';
import { assetChecksQueue } from './asset-checks.ts';
import { mailQueue } from './mail.ts';
import { apiKeyExpiryQueue } from './api-key-expiry.ts';
import { adminDigestQueue } from './admin-digest.ts';
import { webhookDeliveryQueue, webhookSweepQueue } from './webhooks.ts';

/** All queues, in the order they are declared. Each feature's job module adds its queue here. */
export const queues: QueueDefinition<any>[] = [appStatsQueue, categoryCountsQueue, assetChecksQueue, mailQueue, apiKeyExpiryQueue, adminDigestQueue, webhookDeliveryQueue, webhookSweepQueue];
