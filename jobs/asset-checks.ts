import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../src/lib/job-queue.ts';

/**
 * Advisory asset checks: fetch each image a listing names (SSRF-guarded), read its format and
 * dimensions from the bytes, and store the result for the owner and reviewers. Submission and
 * approval never wait for these.
 */
export const ASSET_CHECKS_QUEUE = 'apps.asset-checks';

/** Call inside the transaction that changed an app's logo, banner or screenshots. */
export const enqueueAssetChecks = (jobs: JobQueue, em: EntityManager, appId: string) =>
  jobs.send(em, ASSET_CHECKS_QUEUE, { appId }, { singletonKey: appId });
