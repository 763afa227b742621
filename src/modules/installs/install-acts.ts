import { executeNamed, type SqlTarget, type SqlTime } from '../../lib/named-sql.ts';
// Raw SQL here is atomic (D106): an install or reinstall decided and written in one statement, racing ones retried.

/**
 * What an installer did after installing: uninstalls and reinstalls, appended to `install_events`
 * and numbered per installer (odd: uninstall, even: reinstall). The next number is unique, so
 * appending an act is a compare-and-set: of two concurrent uninstalls (or reinstalls) one appends
 * and the other finds it and answers with its time.
 *
 * An act counts (moves active installs and uninstalls) when the installer's install counted and
 * the act changes what the installer contributes: an uninstall while the installer is counted as
 * active (and, anonymous, within its network's daily budget), a reinstall after a counted uninstall.
 * So active installs never exceed installs, nor fall below zero.
 */

/** Each target installer with its install and its latest act (`seq` 0 and no kind: none yet), and the latest act that counted. */
const WITH_LATEST_ACT = `
  select i.app_id, i.installer, i.counted, i.installed_at, coalesce(e.seq, 0) as seq, e.kind, e.occurred_at,
         (select c.kind from install_events c
          where c.app_id = i.app_id and c.installer = i.installer and c.counted order by c.seq desc limit 1) as last_counted
  from installs i
  left join lateral (select seq, kind, occurred_at from install_events e
                     where e.app_id = i.app_id and e.installer = i.installer order by seq desc limit 1) e on true`;

/**
 * Reactivates installers who had uninstalled and install again; each repeat install answers with
 * the start of the install in force (the first install, or the latest reinstall). Keys are
 * `appId installer`; an installer that had never uninstalled keeps its first install's time.
 */
export async function reinstall(tx: SqlTarget, repeats: { appId: string; installer: string }[]): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  let pending = repeats;
  // A repeat whose reinstall lost to a concurrent one is asked again, and then finds it.
  while (pending.length > 0) {
    const rows = await executeNamed<{ app_id: string; installer: string; installed_at: SqlTime | null }>(
      tx,
      `with target as (
         ${WITH_LATEST_ACT}
         join (select distinct * from unnest(:appIds::uuid[], :installers::text[]) as x(app_id, installer)) x
           on i.app_id = x.app_id and i.installer = x.installer),
       appended as (
         insert into install_events (app_id, installer, seq, kind, counted)
         select app_id, installer, seq + 1, 'REINSTALL', counted and last_counted is not distinct from 'UNINSTALL'
         from target where kind = 'UNINSTALL' order by app_id, installer
         on conflict (app_id, installer, seq) do nothing
         returning app_id, installer, occurred_at)
       select t.app_id, t.installer,
              case when a.occurred_at is not null then a.occurred_at
                   when t.kind = 'REINSTALL' then t.occurred_at
                   when t.kind is null then t.installed_at end as installed_at
       from target t left join appended a on a.app_id = t.app_id and a.installer = t.installer`,
      { appIds: pending.map((repeat) => repeat.appId), installers: pending.map((repeat) => repeat.installer) },
    );
    for (const row of rows) if (row.installed_at) answers.set(`${row.app_id} ${row.installer}`, new Date(row.installed_at).toISOString());
    pending = pending.filter((repeat) => !answers.has(`${repeat.appId} ${repeat.installer}`));
  }
  return answers;
}

/**
 * Uninstalls an installer, or finds it uninstalled already: the time of the uninstall in force, or
 * null when this installer never installed the app. `network` is set for an anonymous installer:
 * its uninstalls count only within `budget` per network per app per UTC day (the caller holds the
 * budget's lock).
 */
export async function uninstall(
  tx: SqlTarget,
  target: { appId: string; installer: string; network: string | null },
  budget: number,
): Promise<string | null> {
  for (;;) {
    const [row] = await executeNamed<{ installed: boolean; uninstalled_at: SqlTime | null }>(
      tx,
      `with target as (${WITH_LATEST_ACT} where i.app_id = :appId and i.installer = :installer),
       appended as (
         insert into install_events (app_id, installer, seq, kind, counted, source_network)
         select app_id, installer, seq + 1, 'UNINSTALL',
                counted and coalesce(last_counted, 'REINSTALL') = 'REINSTALL'
                  and (:network::text is null or (
                    select count(*) from install_events u
                    where u.app_id = :appId and u.source_network = :network and u.kind = 'UNINSTALL' and u.counted
                      and u.occurred_at >= date_trunc('day', now() at time zone 'utc') at time zone 'utc') < :budget),
                :network::text
         from target where kind is distinct from 'UNINSTALL'
         on conflict (app_id, installer, seq) do nothing
         returning occurred_at)
       select exists (select 1 from target) as installed,
              coalesce((select occurred_at from appended), (select occurred_at from target where kind = 'UNINSTALL')) as uninstalled_at`,
      { ...target, budget },
    );
    if (!row!.installed) return null;
    // No time: a concurrent uninstall appended first; asked again, this finds it.
    if (row!.uninstalled_at) return new Date(row!.uninstalled_at).toISOString();
  }
}
