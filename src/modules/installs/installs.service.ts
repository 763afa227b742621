import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../../lib/job-queue.ts';
import { enqueueAppStats } from '../stats/stats.service.ts';
import { findPublicAppId } from '../catalogue/catalogue.service.ts';
import type { InstallResult } from './installs.model.ts';

/**
 * Who installed, from the strongest evidence there is: the platform user (with their token),
 * else the installation id the client sent, else the client address for the current UTC day.
 * Each installer counts once per app.
 */
export type Installer =
  | { kind: 'user'; platformUserId: string }
  | { kind: 'installation'; installationId: string }
  | { kind: 'address'; address: string };

/** The installer key of a platform user; a review needs an install under it. */
export const userInstallerKey = (platformUserId: string) => `user:${platformUserId}`;

/**
 * Appends an install event (a repeat by the same installer is a no-op that reports the first
 * install) and, when it is new, enqueues the stats rollup in the same transaction.
 */
export async function recordInstall(em: EntityManager, jobs: JobQueue, slug: string, installer: Installer): Promise<InstallResult> {
  return em.transactional(async (tx) => {
    const appId = await findPublicAppId(tx, slug);
    // The day of an address install comes from the database clock, the same one that stamps installed_at.
    const [key, keyParam] =
      installer.kind === 'user'
        ? ['?', userInstallerKey(installer.platformUserId)]
        : installer.kind === 'installation'
          ? ['?', `installation:${installer.installationId}`]
          : [`? || ':' || to_char(now() at time zone 'utc', 'YYYY-MM-DD')`, `address:${installer.address}`];
    const platformUserId = installer.kind === 'user' ? installer.platformUserId : null;
    const inserted = await tx.execute<{ installed_at: string }[]>(
      `insert into installs (app_id, installer, platform_user_id) values (?, ${key}, ?)
       on conflict (app_id, installer) do nothing returning installed_at`,
      [appId, keyParam, platformUserId],
    );
    if (inserted[0]) {
      await enqueueAppStats(jobs, tx, appId);
      return { slug, installedAt: new Date(inserted[0].installed_at).toISOString() };
    }
    const [first] = await tx.execute<{ installed_at: string }[]>(
      `select installed_at from installs where app_id = ? and installer = ${key}`,
      [appId, keyParam],
    );
    return { slug, installedAt: new Date(first!.installed_at).toISOString() };
  });
}
