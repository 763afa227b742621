import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../../lib/job-queue.ts';
import { enqueueAppStats } from '../stats/stats.service.ts';
import { findPublicAppId } from '../catalogue/catalogue.service.ts';
import type { InstallResult } from './installs.model.ts';

/**
 * Who installed, from the strongest evidence there is: the platform user (with their token),
 * else the installation id the client sent, else the client's network (`networkOf`) for the
 * current UTC day. Each installer is recorded once per app.
 */
export type Installer =
  | { kind: 'user'; platformUserId: string }
  | { kind: 'installation'; installationId: string; network: string }
  | { kind: 'network'; network: string };

/**
 * Anonymous installation ids are free to invent, and install counts drive the default sort: one
 * network's distinct ids count towards an app only this many times per UTC day. Beyond that an
 * install is still answered and recorded, but not counted. Signed-in users always count.
 */
export const INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY = 3;

/** The installer key of a platform user; a review needs an install under it. */
export const userInstallerKey = (platformUserId: string) => `user:${platformUserId}`;

/**
 * Appends an install event (a repeat by the same installer is a no-op that reports the first
 * install) and, when it is new, enqueues the stats rollup in the same transaction.
 */
export async function recordInstall(em: EntityManager, jobs: JobQueue, slug: string, installer: Installer): Promise<InstallResult> {
  return em.transactional(async (tx) => {
    const appId = await findPublicAppId(tx, slug);
    // The day of a network install comes from the database clock, the same one that stamps installed_at.
    const [key, keyParam] =
      installer.kind === 'user'
        ? ['?', userInstallerKey(installer.platformUserId)]
        : installer.kind === 'installation'
          ? ['?', `installation:${installer.installationId}`]
          : [`? || ':' || to_char(now() at time zone 'utc', 'YYYY-MM-DD')`, `address:${installer.network}`];
    const platformUserId = installer.kind === 'user' ? installer.platformUserId : null;
    const network = installer.kind === 'installation' ? installer.network : null;
    if (network) {
      // Concurrent installs from one network take turns, so together they cannot overrun the budget.
      await tx.execute(`select pg_advisory_xact_lock(hashtext('install-budget'), hashtext(? || ' ' || ?))`, [appId, network]);
    }
    const inserted = await tx.execute<{ installed_at: string; counted: boolean }[]>(
      `insert into installs (app_id, installer, platform_user_id, source_network, counted)
       values (?, ${key}, ?, ?::text, ?::text is null or (
         select count(*) from installs
         where app_id = ? and source_network = ? and counted
           and installed_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc') < ?)
       on conflict (app_id, installer) do nothing returning installed_at, counted`,
      [appId, keyParam, platformUserId, network, network, appId, network, INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY],
    );
    if (inserted[0]) {
      if (inserted[0].counted) await enqueueAppStats(jobs, tx, appId);
      return { slug, installedAt: new Date(inserted[0].installed_at).toISOString() };
    }
    const [first] = await tx.execute<{ installed_at: string }[]>(
      `select installed_at from installs where app_id = ? and installer = ${key}`,
      [appId, keyParam],
    );
    return { slug, installedAt: new Date(first!.installed_at).toISOString() };
  });
}
