import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../../lib/job-queue.ts';
import { enqueueInstallRollUp } from '../stats/stats.service.ts';
import { findPublicAppId } from '../catalogue/catalogue.service.ts';
import { OWNER_JOINS, VISIBLE } from '../catalogue/catalogue-rows.ts';
import type { InstallResult } from './installs.model.ts';
import { executeNamed as execute } from '../../lib/named-sql.ts';
import { Install } from './install.entity.ts';
import { reinstall } from './install-acts.ts';
// Raw SQL here is atomic (D106): installs are counted against their budgets under advisory locks, many in one statement.

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

/** Whether this installer (its key) has installed the app. */
export const hasInstalled = async (em: EntityManager, appId: string, installer: string) => (await em.count(Install, { appId, installer })) > 0;

/** The installer's key; a network's gets the UTC day appended by the database clock that stamps `installed_at`. */
export function installerKey(installer: Installer): { key: string; daily: boolean } {
  if (installer.kind === 'user') return { key: userInstallerKey(installer.platformUserId), daily: false };
  if (installer.kind === 'installation') return { key: `installation:${installer.installationId}`, daily: false };
  return { key: `address:${installer.network}`, daily: true };
}

export interface InstallRequest {
  slug: string;
  installer: Installer;
}

/** What each install of a batch came to: its answer, or why it was refused (404, 410). */
export type InstallOutcome = { ok: true; result: InstallResult } | { ok: false; error: unknown };

/**
 * Appends install events, any number in one transaction and one INSERT that finds each public app
 * by its slug (a repeat by the same installer is a no-op that reports the first install). New,
 * counted installs enqueue their app's stats roll-up in the same transaction, once per app.
 * Installs from one network to one app take turns under an advisory lock (sorted, so concurrent
 * batches cannot deadlock), and within a batch they are counted in order, so together they
 * cannot overrun the budget.
 */
export async function recordInstalls(em: EntityManager, jobs: JobQueue, requests: InstallRequest[]): Promise<InstallOutcome[]> {
  const keys = requests.map((request) => installerKey(request.installer));
  const networks = requests.map((request) => (request.installer.kind === 'installation' ? request.installer.network : null));
  return em.transactional(async (tx) => {
    // Before the insert: the roll-up must be able to tell when this batch has committed.
    await enqueueInstallRollUp(jobs, tx);
    const budgeted = [...new Set(requests.flatMap((request, i) => (networks[i] ? [`${request.slug} ${networks[i]}`] : [])))].sort();
    if (budgeted.length > 0) {
      // An approved app's slug never changes, so it names the app as well as its id does.
      await execute(tx, `select pg_advisory_xact_lock(hashtext('install-budget'), hashtext(k)) from unnest(:keys::text[]) k`, { keys: budgeted });
    }
    const rows = await execute<{ ord: number; app_id: string; installed_at: string | null; counted: boolean | null }>(
      tx,
      `with input as (
         select * from unnest(:slugs::text[], :keys::text[], :daily::boolean[], :users::text[], :networks::text[])
           with ordinality as x(slug, key, daily, platform_user_id, network, ord)),
       resolved as (
         select x.ord, x.platform_user_id, x.network, a.id as app_id,
                case when x.daily then x.key || ':' || to_char(now() at time zone 'utc', 'YYYY-MM-DD') else x.key end as installer
         from input x join apps a on a.slug = x.slug ${OWNER_JOINS}
         where ${VISIBLE}),
       budgeted as (
         select r.*, r.network is null or (
           select count(*) from installs i
           where i.app_id = r.app_id and i.source_network = r.network and i.counted
             and i.installed_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc')
           + row_number() over (partition by r.app_id, r.network order by r.ord) <= :budget as counted
         from resolved r),
       inserted as (
         insert into installs (app_id, installer, platform_user_id, source_network, counted)
         -- In key order, so two batches inserting the same installers wait for each other without a deadlock.
         select app_id, installer, platform_user_id, network, counted from budgeted order by app_id, installer
         on conflict (app_id, installer) do nothing
         returning app_id, installer, installed_at, counted)
       select b.ord, b.app_id, coalesce(n.installed_at, i.installed_at) as installed_at, n.counted
       from budgeted b
       left join inserted n on n.app_id = b.app_id and n.installer = b.installer
       left join installs i on n.app_id is null and i.app_id = b.app_id and i.installer = b.installer`,
      {
        slugs: requests.map((request) => request.slug),
        keys: keys.map((key) => key.key),
        daily: keys.map((key) => key.daily),
        users: requests.map((request) => (request.installer.kind === 'user' ? request.installer.platformUserId : null)),
        networks,
        budget: INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY,
      },
    );
    const byOrd = new Map(rows.map((row) => [Number(row.ord), row]));
    // A repeat install by an installer that can uninstall (not a network's daily key) may reactivate it.
    const repeats = requests.flatMap((_, i) => {
      const row = byOrd.get(i + 1);
      return row?.installed_at && row.counted === null && !keys[i]!.daily ? [{ appId: row.app_id, installer: keys[i]!.key }] : [];
    });
    const current = repeats.length > 0 ? await reinstall(tx, repeats) : new Map<string, string>();
    const outcomes: InstallOutcome[] = [];
    for (const [i, request] of requests.entries()) {
      const row = byOrd.get(i + 1);
      try {
        // No row: the slug is not public (404 or 410). A row without a time: a concurrent first install of the same installer.
        const installedAt =
          (row && current.get(`${row.app_id} ${keys[i]!.key}`)) ?? row?.installed_at ?? (await firstInstalledAt(tx, request.slug, keys[i]!));
        outcomes.push({ ok: true, result: { slug: request.slug, installedAt: new Date(installedAt).toISOString() } });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  });
}

async function firstInstalledAt(em: EntityManager, slug: string, key: { key: string; daily: boolean }): Promise<string> {
  const appId = await findPublicAppId(em, slug);
  const installer = key.daily ? `:key || ':' || to_char(now() at time zone 'utc', 'YYYY-MM-DD')` : ':key';
  const [first] = await execute<{ installed_at: string }>(
    em,
    `select installed_at from installs where app_id = :appId and installer = ${installer}`,
    {
      appId,
      key: key.key,
    },
  );
  return first!.installed_at;
}
