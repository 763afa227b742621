import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../../lib/job-queue.ts';
import { holdInstallsWatermark, sendInstallRollUp, sendInstallRollUpUnlessWaiting } from '../stats/stats.service.ts';
import { findPublicAppId } from '../catalogue/catalogue.service.ts';
import type { InstallResult } from './installs.model.ts';
import { executeNamed as execute, namedSql, type SqlTarget, type SqlTime } from '../../lib/named-sql.ts';
import type { SqlWriter } from '../../lib/sql-writer.ts';
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

export interface InstallerKey {
  key: string;
  daily: boolean;
}

/** The installer's key; a network's gets the UTC day appended by the database clock that stamps `installed_at`. */
export function installerKey(installer: Installer): InstallerKey {
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

/** The `ord` of the one row `record_install_batch_alone` answers when no roll-up waits: nothing was written (its migration, D222). */
const NOT_WRITTEN_ALONE = 0;

type BatchRow = { ord: number; app_id: string; installed_at: SqlTime | null; counted: boolean | null };

/**
 * Appends install events, any number in one INSERT that finds each public app by its slug (a
 * repeat by the same installer is a no-op that reports the first install), through Bun's client
 * (`writer`, D214: the ORM's transaction took most of an install's CPU).
 * Installs from one network to one app take turns under an advisory lock (sorted, so concurrent
 * batches cannot deadlock), and within a batch they are counted in order, so together they
 * cannot overrun the budget.
 * Most batches are one statement on its own (D222): a roll-up waits, not yet started, and counts
 * them. Without one waiting that statement writes nothing, and the batch is written in a
 * transaction that sends the roll-up with the installs.
 */
export async function recordInstalls(writer: SqlWriter, jobs: JobQueue, requests: InstallRequest[]): Promise<InstallOutcome[]> {
  const keys = requests.map((request) => installerKey(request.installer));
  const params = {
    slugs: requests.map((request) => request.slug),
    keys: keys.map((key) => key.key),
    daily: keys.map((key) => key.daily),
    users: requests.map((request) => (request.installer.kind === 'user' ? request.installer.platformUserId : null)),
    networks: requests.map((request) => (request.installer.kind === 'installation' ? request.installer.network : null)),
    budget: INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY,
  };
  // The functions take the locks (the roll-up's watermark, then each network's budget per app, keyed
  // by the slug: an approved app's slug never changes) and insert; their statements are planned once
  // per connection (D187, D189; their text is in the migrations).
  const batch = (name: string, extra = '') =>
    namedSql(
      `select ord, app_id, installed_at, counted${extra} from ${name}(:slugs::text[], :keys::text[], :daily::boolean[], :users::text[], :networks::text[], :budget::int)`,
      params,
    );
  /** A repeat install by an installer that can uninstall (not a network's daily key) may reactivate it. */
  const repeatsIn = (rows: BatchRow[]) =>
    rows.flatMap((row) => {
      const key = keys[Number(row.ord) - 1]!;
      return row.installed_at && row.counted === null && !key.daily ? [{ appId: row.app_id, installer: key.key }] : [];
    });

  const alone = await writer.query<BatchRow>(batch('record_install_batch_alone'));
  // No rows at all is written too: no slug of the batch was public.
  if (Number(alone[0]?.ord) !== NOT_WRITTEN_ALONE) {
    // Committed. Reactivations append events, so they go as an uninstall does: under the watermark's lock, then the roll-up unless one waits.
    const repeats = repeatsIn(alone);
    const current =
      repeats.length === 0
        ? new Map<string, string>()
        : await writer.transaction(async (tx) => {
            await holdInstallsWatermark(tx);
            const reactivated = await reinstall(tx, repeats);
            await sendInstallRollUpUnlessWaiting(jobs, tx);
            return reactivated;
          });
    // What is left to find (a slug that is not public, a concurrent first install) is only read, each in a transaction of its own.
    return outcomesOf(requests, keys, alone, current, (slug, key) => writer.transaction((tx) => firstInstalledAt(tx, slug, key)));
  }
  return writer.transaction(async (tx) => {
    const rows = await tx.query<BatchRow & { roll_up_waiting: boolean }>(batch('record_install_batch', ', roll_up_waiting'));
    const repeats = repeatsIn(rows);
    const current = repeats.length > 0 ? await reinstall(tx, repeats) : new Map<string, string>();
    // A roll-up that has not started will count this batch; only without one is a job sent. Last, as
    // every writer of install events sends it: after the events, so none waits for a job row while holding one (D237).
    if (rows.length > 0 && !rows[0]!.roll_up_waiting) await sendInstallRollUp(jobs, tx);
    return outcomesOf(requests, keys, rows, current, (slug, key) => firstInstalledAt(tx, slug, key));
  });
}

/** Each request's answer from its row (`current`: the reinstalls' times; `find`: a request without a time), or why it was refused. */
async function outcomesOf(
  requests: InstallRequest[],
  keys: InstallerKey[],
  rows: BatchRow[],
  current: Map<string, string>,
  find: (slug: string, key: InstallerKey) => Promise<SqlTime>,
): Promise<InstallOutcome[]> {
  const byOrd = new Map(rows.map((row) => [Number(row.ord), row]));
  const outcomes: InstallOutcome[] = [];
  for (const [i, request] of requests.entries()) {
    const row = byOrd.get(i + 1);
    try {
      // No row: the slug is not public (404 or 410). A row without a time: a concurrent first install of the same installer.
      const installedAt = (row && current.get(`${row.app_id} ${keys[i]!.key}`)) ?? row?.installed_at ?? (await find(request.slug, keys[i]!));
      outcomes.push({ ok: true, result: { slug: request.slug, installedAt: new Date(installedAt).toISOString() } });
    } catch (error) {
      outcomes.push({ ok: false, error });
    }
  }
  return outcomes;
}

async function firstInstalledAt(tx: SqlTarget, slug: string, key: InstallerKey): Promise<SqlTime> {
  const appId = await findPublicAppId(tx, slug);
  const installer = key.daily ? `:key || ':' || to_char(now() at time zone 'utc', 'YYYY-MM-DD')` : ':key';
  const [first] = await execute<{ installed_at: SqlTime }>(
    tx,
    `select installed_at from installs where app_id = :appId and installer = ${installer}`,
    {
      appId,
      key: key.key,
    },
  );
  return first!.installed_at;
}
