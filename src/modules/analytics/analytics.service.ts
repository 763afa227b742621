import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { validationFailed } from '../../http/problem.ts';
import { authorizeApp, authorizeTeam, type Caller } from '../teams/access.ts';
import { App } from '../apps/app.entity.ts';
import { Review } from '../reviews/review.entity.ts';
import { AppStats } from '../stats/app-stats.entity.ts';
import { AppDailyStats } from '../stats/app-daily-stats.entity.ts';
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

/** A mean rating to two places (halves up, as PostgreSQL's `round` does), 0 without reviews; exact, from the integer sums. */
const averageOf = (ratingSum: number, reviews: number) => (reviews === 0 ? 0 : Math.floor((200 * ratingSum + reviews) / (2 * reviews)) / 100);

/** Every UTC day of the range, oldest first. */
export function daysOf(range: { from: string; to: string }): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${range.from}T00:00:00Z`), last = Date.parse(`${range.to}T00:00:00Z`); at <= last; at += DAY_MS) {
    days.push(isoDay(new Date(at)));
  }
  return days;
}

/** The running sums a day's row ends with: what the average rating and active installs are computed from. */
interface Running {
  activeInstalls: number;
  reviews: number;
  ratingSum: number;
}

const toRow = (date: string, day: { installs: number; uninstalls: number; reviews: number }, running: Running): DailyAnalyticsRow => ({
  date,
  installs: day.installs,
  uninstalls: day.uninstalls,
  activeInstalls: running.activeInstalls,
  reviews: day.reviews,
  averageRating: averageOf(running.ratingSum, running.reviews),
});

/**
 * The daily series of each app and of their sums (key null), oldest day first, every day of the
 * range included (a day without a row as zeros). Each app's running figures start from the sums of
 * its rows before `from`, summed in the database along the primary key; the range's own rows (a
 * year at most) are run through here.
 */
async function series(em: EntityManager, appIds: string[], range: { from: string; to: string }): Promise<Map<string | null, DailyAnalyticsRow[]>> {
  const ids = [...new Set(appIds)];
  const [before, rows] = await Promise.all([
    em
      .createQueryBuilder(AppDailyStats, 's')
      .select([
        's.appId',
        raw('sum(s.new_installs + s.reinstalls - s.uninstalls)::int as active'),
        raw('sum(s.reviews)::int as reviews'),
        raw('sum(s.rating_sum)::bigint as rating'),
      ])
      .where({ appId: { $in: ids }, day: { $lt: range.from } })
      .groupBy('s.appId')
      .execute<{ appId: string; active: number; reviews: number; rating: string }[]>('all'),
    em
      .createQueryBuilder(AppDailyStats, 's')
      .select(['s.appId', 's.day', 's.newInstalls', 's.reinstalls', 's.uninstalls', 's.reviews', 's.ratingSum'])
      .where({ appId: { $in: ids }, day: { $gte: range.from, $lte: range.to } })
      .execute<Pick<AppDailyStats, 'appId' | 'day' | 'newInstalls' | 'reinstalls' | 'uninstalls' | 'reviews' | 'ratingSum'>[]>('all'),
  ]);
  const days = daysOf(range);
  const rowOf = new Map(rows.map((row) => [`${row.appId} ${row.day}`, row]));
  const totals = days.map((date) => ({ date, installs: 0, uninstalls: 0, reviews: 0, running: { activeInstalls: 0, reviews: 0, ratingSum: 0 } }));
  const daily = new Map<string | null, DailyAnalyticsRow[]>();
  const startOf = new Map(before.map((row) => [row.appId, row]));
  for (const appId of ids) {
    const start = startOf.get(appId);
    const running: Running = { activeInstalls: start?.active ?? 0, reviews: start?.reviews ?? 0, ratingSum: Number(start?.rating ?? 0) };
    daily.set(
      appId,
      days.map((date, i) => {
        const row = rowOf.get(`${appId} ${date}`);
        const day = { installs: row ? row.newInstalls + row.reinstalls : 0, uninstalls: row?.uninstalls ?? 0, reviews: row?.reviews ?? 0 };
        running.activeInstalls += day.installs - day.uninstalls;
        running.reviews += day.reviews;
        running.ratingSum += row?.ratingSum ?? 0;
        const sum = totals[i]!;
        sum.installs += day.installs;
        sum.uninstalls += day.uninstalls;
        sum.reviews += day.reviews;
        sum.running.activeInstalls += running.activeInstalls;
        sum.running.reviews += running.reviews;
        sum.running.ratingSum += running.ratingSum;
        return toRow(date, day, running);
      }),
    );
  }
  // No apps, no days: the sums of nothing are no rows, not zeros.
  daily.set(null, ids.length === 0 ? [] : totals.map((sum) => toRow(sum.date, sum, sum.running)));
  return daily;
}

/** The counters and the rating distribution of each app, and of their sums (`appId` null). */
async function counters(em: EntityManager, appIds: string[]) {
  const ids = [...new Set(appIds)];
  const [stats, stars] = await Promise.all([
    em
      .createQueryBuilder(AppStats, 's')
      .select(['s.appId', 's.installCount', 's.activeInstalls', 's.uninstallCount', 's.reviewCount', 's.ratingSum'])
      .where({ appId: { $in: ids } })
      .execute<Pick<AppStats, 'appId' | 'installCount' | 'activeInstalls' | 'uninstallCount' | 'reviewCount' | 'ratingSum'>[]>('all'),
    em
      .createQueryBuilder(Review, 'r')
      .select([raw('r.app_id as app_id'), 'r.rating', raw('count(*)::int as n')])
      .where({ app: { $in: ids }, hidden: false })
      .groupBy(['r.app', 'r.rating'])
      .execute<{ app_id: string; rating: number; n: number }[]>('all', false),
  ]);
  const statOf = new Map(stats.map((stat) => [stat.appId, stat]));
  const starsOf = new Map(stars.map((row) => [`${row.app_id} ${row.rating}`, row.n]));
  const perApp = ids.map((appId) => {
    const stat = statOf.get(appId);
    const distribution = [1, 2, 3, 4, 5].map((rating) => starsOf.get(`${appId} ${rating}`) ?? 0);
    return {
      appId: appId as string | null,
      installCount: stat?.installCount ?? 0,
      activeInstalls: stat?.activeInstalls ?? 0,
      uninstallCount: stat?.uninstallCount ?? 0,
      reviewCount: stat?.reviewCount ?? 0,
      ratingSum: stat?.ratingSum ?? 0,
      distribution,
    };
  });
  const sum = (value: (row: (typeof perApp)[number]) => number) => perApp.reduce((total, row) => total + value(row), 0);
  const totals = {
    appId: null,
    installCount: sum((row) => row.installCount),
    activeInstalls: sum((row) => row.activeInstalls),
    uninstallCount: sum((row) => row.uninstallCount),
    reviewCount: sum((row) => row.reviewCount),
    ratingSum: sum((row) => row.ratingSum),
    distribution: [0, 1, 2, 3, 4].map((i) => sum((row) => row.distribution[i]!)),
  };
  return [...perApp, totals].map(({ ratingSum, distribution, ...row }) => ({
    ...row,
    averageRating: averageOf(ratingSum, row.reviewCount),
    ratingDistribution: Object.fromEntries(distribution.map((count, i) => [String(i + 1), count])) as RatingDistribution,
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
  const range = seriesRange({});
  const [figures, installs] = await Promise.all([
    counters(em, [app.id]),
    em
      .createQueryBuilder(AppDailyStats, 's')
      .select(['s.day', 's.newInstalls'])
      .where({ appId: app.id, day: { $gte: range.from, $lte: range.to } })
      .execute<Pick<AppDailyStats, 'day' | 'newInstalls'>[]>('all'),
  ]);
  const installsByDay = daysOf(range).map((date) => ({ date, count: installs.find((row) => row.day === date)?.newInstalls ?? 0 }));
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

const seriesOfApp = async (em: EntityManager, appId: string, range: { from: string; to: string }) => (await series(em, [appId], range)).get(appId)!;

/** The last `days` UTC days, today included. */
export const lastDays = (days: number) => seriesRange({ from: isoDay(new Date(Date.now() - (days - 1) * DAY_MS)) });

/** Any app's last `days` UTC days, today included (for the console, whose routes check the admin's role). */
export function recentActivity(em: EntityManager, appId: string, days: number): Promise<DailyAnalyticsRow[]> {
  return seriesOfApp(em, appId, lastDays(days));
}

/**
 * The analytics of several apps, each with its daily series, and their sums: what a team's
 * analytics show. The caller decides which apps the reader may see.
 */
export async function analyticsOfApps(em: EntityManager, appIds: string[], query: DailyQuery): Promise<AppsAnalytics> {
  const range = seriesRange(query);
  const [apps, figures, daily] = await Promise.all([
    em
      .createQueryBuilder(App, 'a')
      .select(['a.id', 'a.slug', 'a.name'])
      .where({ id: { $in: appIds } })
      .orderBy([{ name: 'asc' }, { id: 'asc' }])
      .execute<{ id: string; slug: string; name: string }[]>('all'),
    counters(em, appIds),
    series(em, appIds, range),
  ]);
  return {
    apps: apps.map((app) => ({ ...app, ...figuresOf(figures, app.id), daily: daily.get(app.id)! })),
    totals: { ...figuresOf(figures, null), daily: daily.get(null)! },
  };
}

/** The analytics of each of a team's apps and their sums (analyst or more). */
export async function getTeamAnalytics(em: EntityManager, caller: Caller, teamId: string, query: DailyQuery): Promise<AppsAnalytics> {
  seriesRange(query);
  await authorizeTeam(em, caller, teamId, 'analytics');
  const apps = await em.createQueryBuilder(App, 'a').select('a.id').where({ teamId }).execute<{ id: string }[]>('all');
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
