import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../../lib/job-queue.ts';
import { enqueueAppStats } from '../stats/stats.service.ts';
import { findPublicAppId } from '../catalogue/catalogue.service.ts';
import type { InstallResult } from './installs.model.ts';
import { namedSqlForOrm } from '../../lib/named-sql.ts';

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

/** The installer's key: a network counts once per UTC day, by the database clock that stamps `installed_at`. */
function installerKey(installer: Installer): { sql: string; value: string } {
  if (installer.kind === 'user') return { sql: ':installer', value: userInstallerKey(installer.platformUserId) };
  if (installer.kind === 'installation') return { sql: ':installer', value: `installation:${installer.installationId}` };
  return { sql: `:installer || ':' || to_char(now() at time zone 'utc', 'YYYY-MM-DD')`, value: `address:${installer.network}` };
}

/**
 * Appends an install event in one statement that finds the public app by its slug and inserts
 * (a repeat by the same installer is a no-op that reports the first install); when the install is
 * new and counted, the stats roll-up is enqueued in the same transaction. Only a refusal (404,
 * 410) or a repeat reads again.
 */
export async function recordInstall(em: EntityManager, jobs: JobQueue, slug: string, installer: Installer): Promise<InstallResult> {
  const key = installerKey(installer);
  const network = installer.kind === 'installation' ? installer.network : null;
  const params = {
    slug,
    installer: key.value,
    platformUserId: installer.kind === 'user' ? installer.platformUserId : null,
    network,
    budget: INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY,
  };
  return em.transactional(async (tx) => {
    if (network) {
      // Concurrent installs from one network take turns, so together they cannot overrun the budget.
      // An approved app's slug never changes, so it names the app as well as its id does.
      await execute(tx, `select pg_advisory_xact_lock(hashtext('install-budget'), hashtext(:slug || ' ' || :network))`, { slug, network });
    }
    const [inserted] = await execute<{ app_id: string; installed_at: string; counted: boolean }>(
      tx,
      `insert into installs (app_id, installer, platform_user_id, source_network, counted)
       select a.id, ${key.sql}, :platformUserId, :network::text, :network::text is null or (
         select count(*) from installs i
         where i.app_id = a.id and i.source_network = :network and i.counted
           and i.installed_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc') < :budget
       from apps a join developers d on d.id = a.developer_id
       where a.slug = :slug and a.status = 'APPROVED' and d.status <> 'SUSPENDED'
       on conflict (app_id, installer) do nothing
       returning app_id, installed_at, counted`,
      params,
    );
    if (inserted) {
      if (inserted.counted) await enqueueAppStats(jobs, tx, inserted.app_id);
      return { slug, installedAt: new Date(inserted.installed_at).toISOString() };
    }
    const appId = await findPublicAppId(tx, slug);
    const [first] = await execute<{ installed_at: string }>(
      tx,
      `select installed_at from installs where app_id = :appId and installer = ${key.sql}`,
      { ...params, appId },
    );
    return { slug, installedAt: new Date(first!.installed_at).toISOString() };
  });
}

async function execute<Row>(em: EntityManager, text: string, params: Record<string, unknown>): Promise<Row[]> {
  const statement = namedSqlForOrm(text, params);
  return em.execute<Row[]>(statement.text, statement.values);
}
