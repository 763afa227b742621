import { ASSET_CHECKS_QUEUE, runAssetChecks } from '../src/modules/apps/asset-checks.service.ts';
import { defineQueue } from './queues.ts';

/** Advisory asset checks (`src/modules/apps/asset-checks.service.ts`), one app at a time. */
export const assetChecksQueue = defineQueue<{ appId: string }>({
  name: ASSET_CHECKS_QUEUE,
  options: {
    // 'short' lets one job per app wait at a time (the singletonKey above): it reads the app when it runs.
    policy: 'short',
    retryLimit: 3,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 120,
    // A batch checks its apps one after another, each within the 5 s fetch limit.
    expireInSeconds: 120,
  },
  work: { batchSize: 5, localConcurrency: 2 },
  async handler(ctx, jobs) {
    for (const appId of new Set(jobs.map((job) => job.data.appId))) {
      await runAssetChecks(ctx.orm.em.fork(), appId, ctx.config.allowPrivateFetch);
    }
  },
});
