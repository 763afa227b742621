import type { EntityManager } from '@mikro-orm/postgresql';
import { validationFailed } from '../../http/problem.ts';
import { authorizeApp, authorizeTeam, type Caller } from '../teams/access.ts';
import { executeNamed } from '../../lib/named-sql.ts';
import {
  ANALYTICS_DAYS,
  MAX_SERIES_DAYS,
  type AppAnalytics,
  type AppsAnalytics,
  type DailyAnalyticsRow,
  type DailyQuery,
  type RatingDistribution,
} from './analytics.model.ts';

/**
 * Developers' analytics, read from the roll-ups only (`app_stats`, `app_daily_stats`): a series of
 * any length up to a year costs a few hundred narrow rows however many installs an app has.
 */

/** An app the caller may read analytics of (personal, or by team role; the one shared check); anyone else's is 404. */
async function readableApp(em: EntityManager, caller: Caller, appId: string) {
  const app = await authorizeApp(em, caller, appId, 'analytics');
  return { id: app.id, slug: app.slug, status: app.status, featured: app.featured };
}

const DAY_MS = 86_400_000;
const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** A YYYY-MM-DD that names a real day (not 2026-02-30), as midnight UTC. */
function parseDay(value: string, name: 'from' | 'to'): Date {
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || isoDay(date) !== value) {
    throw validationFailed(`\`${name}\` is not a calendar day`, [{ path: `/${name}`, message: `${value} is not a calendar day (YYYY-MM-DD)` }]);
  }
  return date;
}

/** The UTC days a series covers: default the last 30 up to today; at most a year; `from` not after `to`. */
export function seriesRange(query: DailyQuery, now = new Date()): { from: string; to: string } {
  const to = query.to ? parseDay(query.to, 'to') : new Date(`${isoDay(now)}T00:00:00Z`);
  const from = query.from ? parseDay(query.from, 'from') : new Date(to.getTime() - (ANALYTICS_DAYS - 1) * DAY_MS);
  if (from > to) throw validationFailed('`from` is after `to`', [{ path: '/from', message: 'must not be after `to`' }]);
  const days = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
  if (days > MAX_SERIES_DAYS) {
    throw validationFailed(`The range covers ${days} days; at most ${MAX_SERIES_DAYS}`, [
      { path: '/from', message: `at most ${MAX_SERIES_DAYS} days from \`from\` to \`to\`` },
    ]);
  }
  return { from: isoDay(from), to: isoDay(to) };
}

const AVERAGE = (ratingTotal: string, reviewsTotal: string) =>
  `case when ${reviewsTotal} = 0 then 0 else round(${ratingTotal}::numeric / ${reviewsTotal}, 2) end`;

/**
 * The daily series of each app and of their sums (`app_id` null), oldest day first. Each day's
 * running figures start from the sums of the app's rows before `from`: at most a row per day of
 * the app's life, read along the primary key.
 */
async function series(em: EntityManager, appIds: string[], range: { from: string; to: string }) {
  return executeNamed<{
    app_id: string | null;
    date: string;
    installs: number;
    uninstalls: number;
    active_installs: number;
    reviews: number;
    average_rating: string;
  }>(
    em,
    `with ids as (select distinct unnest(:appIds::uuid[]) as app_id),
     before as (
       select i.app_id, coalesce(sum(s.new_installs + s.reinstalls - s.uninstalls), 0)::int as active,
              coalesce(sum(s.reviews), 0)::int as reviews, coalesce(sum(s.rating_sum), 0)::bigint as rating
       from ids i left join app_daily_stats s on s.app_id = i.app_id and s.day < :from::date
       group by i.app_id),
     grid as (
       select i.app_id, d::date as day, coalesce(s.new_installs + s.reinstalls, 0) as installs,
              coalesce(s.uninstalls, 0) as uninstalls, coalesce(s.reviews, 0) as reviews, coalesce(s.rating_sum, 0) as rating_sum
       from ids i cross join generate_series(:from::date, :to::date, interval '1 day') d
       left join app_daily_stats s on s.app_id = i.app_id and s.day = d::date),
     running as (
       select g.app_id, g.day, g.installs, g.uninstalls, g.reviews,
              (b.active + sum(g.installs - g.uninstalls) over w)::int as active_installs,
              (b.reviews + sum(g.reviews) over w)::int as reviews_total,
              (b.rating + sum(g.rating_sum) over w)::bigint as rating_total
       from grid g join before b on b.app_id = g.app_id
       window w as (partition by g.app_id order by g.day))
     select app_id, to_char(day, 'YYYY-MM-DD') as date, installs, uninstalls, active_installs, reviews,
            ${AVERAGE('rating_total', 'reviews_total')} as average_rating
     from running
     union all
     select null, to_char(day, 'YYYY-MM-DD'), sum(installs)::int, sum(uninstalls)::int, sum(active_installs)::int, sum(reviews)::int,
            ${AVERAGE('sum(rating_total)', 'sum(reviews_total)')}
     from running group by day
     order by app_id nulls first, date`,
    { appIds, ...range },
  );
}

const toRow = (row: Awaited<ReturnType<typeof series>>[number]): DailyAnalyticsRow => ({
  date: row.date,
  installs: row.installs,
  uninstalls: row.uninstalls,
  activeInstalls: row.active_installs,
  reviews: row.reviews,
  averageRating: Number(row.average_rating),
});

/** The counters and the rating distribution of each app, and of their sums (`app_id` null). */
async function counters(em: EntityManager, appIds: string[]) {
  const rows = await executeNamed<{
    app_id: string | null;
    install_count: number;
    active_installs: number;
    uninstall_count: number;
    review_count: number;
    average_rating: string;
    stars: number[];
  }>(
    em,
    `with per_app as (
       select i.app_id, coalesce(s.install_count, 0) as install_count, coalesce(s.active_installs, 0) as active_installs,
              coalesce(s.uninstall_count, 0) as uninstall_count, coalesce(s.review_count, 0) as review_count,
              coalesce(s.rating_sum, 0) as rating_sum,
              array(select count(r.id)::int from generate_series(1, 5) n
                    left join reviews r on r.app_id = i.app_id and not r.hidden and r.rating = n group by n order by n) as stars
       from (select distinct unnest(:appIds::uuid[]) as app_id) i left join app_stats s on s.app_id = i.app_id)
     select app_id, install_count, active_installs, uninstall_count, review_count,
            ${AVERAGE('rating_sum', 'review_count')} as average_rating, stars
     from per_app
     union all
     select null, coalesce(sum(install_count), 0)::int, coalesce(sum(active_installs), 0)::int, coalesce(sum(uninstall_count), 0)::int,
            coalesce(sum(review_count), 0)::int, ${AVERAGE('coalesce(sum(rating_sum), 0)', 'coalesce(sum(review_count), 0)')},
            array[coalesce(sum(stars[1]), 0)::int, coalesce(sum(stars[2]), 0)::int, coalesce(sum(stars[3]), 0)::int,
                  coalesce(sum(stars[4]), 0)::int, coalesce(sum(stars[5]), 0)::int]
     from per_app`,
    { appIds },
  );
  return rows.map((row) => ({
    appId: row.app_id,
    installCount: row.install_count,
    activeInstalls: row.active_installs,
    uninstallCount: row.uninstall_count,
    reviewCount: row.review_count,
    averageRating: Number(row.average_rating),
    ratingDistribution: Object.fromEntries(row.stars.map((count, i) => [String(i + 1), count])) as RatingDistribution,
  }));
}

/** The figures of one app (or of the sums: null) among `counters`' rows. */
function figuresOf(figures: Awaited<ReturnType<typeof counters>>, appId: string | null) {
  const { appId: _id, ...numbers } = figures.find((row) => row.appId === appId)!;
  return numbers;
}

/** Analytics of an app the caller may read analytics of. */
export async function getAppAnalytics(em: EntityManager, caller: Caller, appId: string): Promise<AppAnalytics> {
  const app = await readableApp(em, caller, appId);
  const [figures, installsByDay] = await Promise.all([
    counters(em, [app.id]),
    executeNamed<{ date: string; count: number }>(
      em,
      `select to_char(d::date, 'YYYY-MM-DD') as date, coalesce(s.new_installs, 0) as count
       from generate_series(:from::date, :to::date, interval '1 day') d
       left join app_daily_stats s on s.app_id = :appId and s.day = d::date order by d`,
      { appId: app.id, ...seriesRange({}) },
    ),
  ]);
  return { ...figuresOf(figures, app.id), status: app.status, featured: app.featured, installsByDay };
}

/** An app the caller may read analytics of, day by day. */
export async function getDailyAnalytics(
  em: EntityManager,
  caller: Caller,
  appId: string,
  query: DailyQuery,
): Promise<{ slug: string; range: { from: string; to: string }; rows: DailyAnalyticsRow[] }> {
  const range = seriesRange(query);
  const app = await readableApp(em, caller, appId);
  return { slug: app.slug, range, rows: await seriesOfApp(em, app.id, range) };
}

const seriesOfApp = async (em: EntityManager, appId: string, range: { from: string; to: string }) =>
  (await series(em, [appId], range)).filter((row) => row.app_id === null).map(toRow);

/** Any app's last `days` UTC days, today included (for the console, whose routes check the admin's role). */
export function recentActivity(em: EntityManager, appId: string, days: number): Promise<DailyAnalyticsRow[]> {
  return seriesOfApp(em, appId, seriesRange({ from: isoDay(new Date(Date.now() - (days - 1) * DAY_MS)) }));
}

/**
 * The analytics of several apps, each with its daily series, and their sums: what a team's
 * analytics show. The caller decides which apps the reader may see.
 */
export async function analyticsOfApps(em: EntityManager, appIds: string[], query: DailyQuery): Promise<AppsAnalytics> {
  const range = seriesRange(query);
  const [apps, figures, days] = await Promise.all([
    executeNamed<{ id: string; slug: string; name: string }>(
      em,
      'select id, slug, name from apps where id = any(:appIds::uuid[]) order by name, id',
      {
        appIds,
      },
    ),
    counters(em, appIds),
    series(em, appIds, range),
  ]);
  const dailyOf = (appId: string | null) => days.filter((row) => row.app_id === appId).map(toRow);
  return {
    apps: apps.map((app) => ({ ...app, ...figuresOf(figures, app.id), daily: dailyOf(app.id) })),
    totals: { ...figuresOf(figures, null), daily: dailyOf(null) },
  };
}

/** The analytics of each of a team's apps and their sums (analyst or more). */
export async function getTeamAnalytics(em: EntityManager, caller: Caller, teamId: string, query: DailyQuery): Promise<AppsAnalytics> {
  seriesRange(query);
  await authorizeTeam(em, caller, teamId, 'analytics');
  const apps = await executeNamed<{ id: string }>(em, 'select id from apps where team_id = :teamId', { teamId });
  return analyticsOfApps(
    em,
    apps.map((app) => app.id),
    query,
  );
}

const CSV_HEADER = 'date,installs,uninstalls,activeInstalls,reviews,averageRating';

/** The daily rows as CSV: a header line, then a line per day (numbers and dates only, nothing to quote). */
export const dailyCsv = (rows: DailyAnalyticsRow[]) =>
  `${[CSV_HEADER, ...rows.map((row) => [row.date, row.installs, row.uninstalls, row.activeInstalls, row.reviews, row.averageRating].join(','))].join(
    '\r\n',
  )}\r\n`;
