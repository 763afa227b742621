import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
// Raw SQL here is batch work (D106): day rows rolled up set-wise for many apps at once.

/**
 * Active installs, uninstalls and the per-day roll-up (`app_daily_stats`). Installs and install
 * events are append-only and numbered, so these counters are kept incrementally: each roll-up adds
 * what the events between the last watermarks and the new ones contribute, and the nightly repair
 * recomputes them from every event up to the watermarks (the same events, so both agree). Reviews
 * change in place (edited, hidden), so their day columns are recomputed per app instead.
 *
 * A day's `new_installs` are counted first installs, `reinstalls` counted reactivations and
 * `uninstalls` counted uninstalls; active installs at the end of a day are the running sum of
 * `new_installs + reinstalls - uninstalls`.
 */

/** Event ids already rolled up (exclusive) and the newest one to roll up now (inclusive). */
export interface EventRange {
  after: string;
  upTo: string;
}

/** Per app and UTC day, the counted contributions of the installs and events in these ranges (or up to them). */
const CONTRIBUTIONS = `
  select app_id, (installed_at at time zone 'utc')::date as day, count(*)::int as new_installs, 0 as reinstalls, 0 as uninstalls
  from installs where counted and id > :installsAfter and id <= :installsUpTo and (:everyApp or app_id = any(:appIds::uuid[]))
  group by 1, 2
  union all
  select app_id, (occurred_at at time zone 'utc')::date, 0,
         count(*) filter (where kind = 'REINSTALL')::int, count(*) filter (where kind = 'UNINSTALL')::int
  from install_events where counted and id > :eventsAfter and id <= :eventsUpTo and (:everyApp or app_id = any(:appIds::uuid[]))
  group by 1, 2`;

/** The contributions summed per app and day, as a CTE named `per_day`. */
const PER_DAY = `per_day as (
  select app_id, day, sum(new_installs)::int as new_installs, sum(reinstalls)::int as reinstalls, sum(uninstalls)::int as uninstalls
  from (${CONTRIBUTIONS}) c group by app_id, day)`;

/** The apps with installs or install events in these ranges. */
export async function appsWithActivity(tx: EntityManager, installs: EventRange, events: EventRange): Promise<string[]> {
  const rows = await executeNamed<{ app_id: string }>(
    tx,
    `select app_id from installs where id > :installsAfter and id <= :installsUpTo
     union
     select app_id from install_events where id > :eventsAfter and id <= :eventsUpTo`,
    { installsAfter: installs.after, installsUpTo: installs.upTo, eventsAfter: events.after, eventsUpTo: events.upTo },
  );
  return rows.map((row) => row.app_id);
}

/**
 * Adds what the installs and events in the ranges contribute to the day rows and to
 * `install_count`, `active_installs` and `uninstall_count`. All three go in one update of each app's
 * stats row, because every update rewrites the row, all its indexes and the search table's copy
 * (D192). Run once per range, in the transaction that moves the watermarks past it. Returns how many
 * apps' counters moved.
 */
export async function addActivity(tx: EntityManager, installs: EventRange, events: EventRange): Promise<number> {
  // Counted in PostgreSQL: a step of a backlog moves tens of thousands of apps, whose ids nobody reads.
  const [counted] = await executeNamed<{ moved: number }>(
    tx,
    `with ${PER_DAY},
     days as (
       insert into app_daily_stats as s (app_id, day, new_installs, reinstalls, uninstalls)
       select app_id, day, new_installs, reinstalls, uninstalls from per_day order by app_id, day
       on conflict (app_id, day) do update set
         new_installs = s.new_installs + excluded.new_installs, reinstalls = s.reinstalls + excluded.reinstalls,
         uninstalls = s.uninstalls + excluded.uninstalls),
     per_app as (
       select app_id, sum(new_installs)::int as added, sum(new_installs + reinstalls - uninstalls)::int as active,
              sum(uninstalls)::int as uninstalls
       from per_day group by app_id),
     moved as (
       update app_stats s set install_count = s.install_count + p.added, active_installs = s.active_installs + p.active,
         uninstall_count = s.uninstall_count + p.uninstalls, updated_at = now()
       from per_app p where s.app_id = p.app_id and (p.added <> 0 or p.active <> 0 or p.uninstalls <> 0)
       returning 1)
     select count(*)::int as moved from moved`,
    {
      installsAfter: installs.after,
      installsUpTo: installs.upTo,
      eventsAfter: events.after,
      eventsUpTo: events.upTo,
      everyApp: true,
      appIds: [],
    },
  );
  return counted?.moved ?? 0;
}

/**
 * Recomputes these apps' install day columns, `active_installs` and `uninstall_count` from every
 * install and event up to the watermarks (locked by the caller, so no roll-up adds to them
 * meanwhile). Returns how many apps had a wrong figure.
 */
export async function recountActivity(tx: EntityManager, appIds: string[], installsUpTo: string, eventsUpTo: string): Promise<number> {
  const params = { installsAfter: 0, installsUpTo, eventsAfter: 0, eventsUpTo, everyApp: false, appIds };
  const days = await executeNamed<{ app_id: string }>(
    tx,
    `with ${PER_DAY},
     zeroed as (
       update app_daily_stats s set new_installs = 0, reinstalls = 0, uninstalls = 0
       where s.app_id = any(:appIds::uuid[]) and (s.new_installs, s.reinstalls, s.uninstalls) <> (0, 0, 0)
         and not exists (select 1 from per_day p where p.app_id = s.app_id and p.day = s.day)
       returning s.app_id),
     upserted as (
       insert into app_daily_stats as s (app_id, day, new_installs, reinstalls, uninstalls)
       select app_id, day, new_installs, reinstalls, uninstalls from per_day order by app_id, day
       on conflict (app_id, day) do update set
         new_installs = excluded.new_installs, reinstalls = excluded.reinstalls, uninstalls = excluded.uninstalls
       where (s.new_installs, s.reinstalls, s.uninstalls) is distinct from (excluded.new_installs, excluded.reinstalls, excluded.uninstalls)
       returning s.app_id)
     select app_id from zeroed union select app_id from upserted`,
    params,
  );
  const counters = await executeNamed<{ app_id: string }>(
    tx,
    `with per_app as (
       select app_id, sum(new_installs + reinstalls - uninstalls)::int as active, sum(uninstalls)::int as uninstalls
       from (${CONTRIBUTIONS}) c group by app_id)
     update app_stats s set active_installs = coalesce(p.active, 0), uninstall_count = coalesce(p.uninstalls, 0), updated_at = now()
     from unnest(:appIds::uuid[]) as target(app_id) left join per_app p on p.app_id = target.app_id
     where s.app_id = target.app_id
       and (s.active_installs, s.uninstall_count) is distinct from (coalesce(p.active, 0), coalesce(p.uninstalls, 0))
     returning s.app_id`,
    params,
  );
  return new Set([...days, ...counters].map((row) => row.app_id)).size;
}

/**
 * Recomputes these apps' review day columns from their visible reviews, each on the day it was
 * first written with its current rating: so the days sum to the app's review count and rating.
 * Returns how many apps' days moved.
 */
export async function recountReviewDays(tx: EntityManager, appIds: string[]): Promise<number> {
  const rows = await executeNamed<{ app_id: string }>(
    tx,
    `with per_day as (
       select app_id, (created_at at time zone 'utc')::date as day, count(*)::int as reviews, sum(rating)::int as rating_sum
       from reviews where app_id = any(:appIds::uuid[]) and not hidden group by 1, 2),
     zeroed as (
       update app_daily_stats s set reviews = 0, rating_sum = 0
       where s.app_id = any(:appIds::uuid[]) and (s.reviews <> 0 or s.rating_sum <> 0)
         and not exists (select 1 from per_day p where p.app_id = s.app_id and p.day = s.day)
       returning s.app_id),
     upserted as (
       insert into app_daily_stats as s (app_id, day, reviews, rating_sum)
       select app_id, day, reviews, rating_sum from per_day order by app_id, day
       on conflict (app_id, day) do update set reviews = excluded.reviews, rating_sum = excluded.rating_sum
       where (s.reviews, s.rating_sum) is distinct from (excluded.reviews, excluded.rating_sum)
       returning s.app_id)
     select app_id from zeroed union select app_id from upserted`,
    { appIds },
  );
  return rows.length;
}
