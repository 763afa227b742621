import { executeNamed } from '../../lib/named-sql.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import type { SqlWriter } from '../../lib/sql-writer.ts';
import { ApiError } from '../../http/problem.ts';
import { holdInstallsWatermark, sendInstallRollUpUnlessWaiting } from '../stats/stats.service.ts';
import { findPublicAppId } from '../catalogue/catalogue.service.ts';
import { uninstall } from './install-acts.ts';
import { INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY, installerKey, type Installer } from './installs.service.ts';
import type { UninstallResult } from './installs.model.ts';
// Raw SQL here is a lock (D106): the uninstall budget's advisory lock has no entity form.

/** Only an installer with a lasting identity can uninstall: a network's install is a per-day count, not an installation. */
export type Uninstaller = Exclude<Installer, { kind: 'network' }>;

/**
 * Records that the installer removed the app (idempotent: a repeat answers with the first
 * `uninstalledAt`); 404 `NOT_INSTALLED` for an installer who never installed it. Uninstalls roll up
 * with installs (the same coalesced job), and anonymous ones count within the same per-network
 * daily budget, under a lock of their own.
 */
export async function recordUninstall(writer: SqlWriter, jobs: JobQueue, slug: string, installer: Uninstaller): Promise<UninstallResult> {
  // On Bun's client, as installs are (D214, D225): the ORM's transaction and `pg`'s writes were most of an uninstall's CPU.
  return writer.transaction(async (tx) => {
    // Before the insert, as for installs: the roll-up must be able to tell when this has committed.
    await holdInstallsWatermark(tx);
    const appId = await findPublicAppId(tx, slug);
    const network = installer.kind === 'installation' ? installer.network : null;
    if (network) await executeNamed(tx, `select pg_advisory_xact_lock(hashtext('uninstall-budget'), hashtext(:key))`, { key: `${appId} ${network}` });
    const uninstalledAt = await uninstall(
      tx,
      { appId, installer: installerKey(installer).key, network },
      INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY,
    );
    if (!uninstalledAt) throw new ApiError(404, 'NOT_INSTALLED', 'This installer has not installed this app');
    await sendInstallRollUpUnlessWaiting(jobs, tx);
    return { slug, uninstalledAt };
  });
}
