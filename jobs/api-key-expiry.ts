import { scanExpiringKeys } from '../src/modules/api-keys/key-expiry.service.ts';
import { defineQueue } from './queues.ts';

/** Hourly: API keys about to expire get their reminder (`scanExpiringKeys`). */
export const API_KEY_EXPIRY_QUEUE = 'api-keys.expiry-scan';

export const apiKeyExpiryQueue = defineQueue<Record<string, never>>({
  name: API_KEY_EXPIRY_QUEUE,
  // A missed or failed scan is simply the next hour's work.
  options: { retryLimit: 2, retryDelay: 60, expireInSeconds: 300, policy: 'singleton' },
  work: { batchSize: 1, localConcurrency: 1 },
  schedule: '5 * * * *',
  async handler(ctx) {
    await scanExpiringKeys({ em: ctx.orm.em, jobs: ctx.jobs });
  },
});
