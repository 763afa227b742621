import { assetCheckJobs, runAssetChecks } from '../src/modules/assets/asset-checks.service.ts';
import { defineQueue } from './queues.ts';

/**
 * Advisory asset checks (`src/modules/assets/asset-checks.service.ts`), one app per job. Each job is
 * in its developer's group and at most 2 of a group run at once across every process, so one
 * developer's slow image hosts (logos trickling a byte a second) hold at most 2 of the workers.
 */
export const assetChecksQueue = defineQueue({
  queue: assetCheckJobs,
  options: {
    // 'short' lets one job per app wait at a time (the singletonKey above): it reads the app when it runs.
    policy: 'short',
    retryLimit: 3,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 120,
    // An app's images are fetched at once, each within the 5 s fetch limit.
    expireInSeconds: 120,
  },
  // One app per fetch (a batch would make other developers' apps wait behind a slow one).
  work: { batchSize: 1, localConcurrency: 4, groupConcurrency: 2 },
  async handler(ctx, jobs) {
    for (const {
      data: { appId },
    } of jobs) {
      await runAssetChecks(ctx.orm.em.fork(), appId, ctx.config.allowPrivateFetch);
    }
  },
});
