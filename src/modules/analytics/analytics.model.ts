import { t, type Static } from 'elysia';
import { Integer } from '../../http/schemas.ts';
import { AppStatusSchema } from '../apps/apps.model.ts';

export const ANALYTICS_DAYS = 30;

/** The longest daily series one request may ask for. */
export const MAX_SERIES_DAYS = 366;

export const RatingDistribution = t.Object(
  { '1': Integer(), '2': Integer(), '3': Integer(), '4': Integer(), '5': Integer() },
  { description: 'Visible reviews by their number of stars' },
);
export type RatingDistribution = Static<typeof RatingDistribution>;

export const AppAnalytics = t.Object(
  {
    installCount: Integer({ description: 'Distinct installers ever' }),
    activeInstalls: Integer({ description: 'Installers whose latest act is an install' }),
    uninstallCount: Integer({ description: 'Uninstalls (an installer who uninstalls, reinstalls and uninstalls again counts twice)' }),
    reviewCount: Integer(),
    averageRating: t.Number({ description: '0 when there are no reviews' }),
    ratingDistribution: RatingDistribution,
    status: AppStatusSchema,
    featured: t.Boolean(),
    installsByDay: t.Array(t.Object({ date: t.String({ format: 'date', description: 'UTC day' }), count: Integer() }), {
      description: `New installs on each of the last ${ANALYTICS_DAYS} UTC days (today included), oldest first; days without installs are 0`,
    }),
  },
  { description: "An app's installs, uninstalls and reviews" },
);
export type AppAnalytics = Static<typeof AppAnalytics>;

const Day = (description: string, example: string) =>
  t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: `A UTC day, YYYY-MM-DD: ${description}`, examples: [example] });

export const DailyQuery = t.Object({
  from: t.Optional(Day(`the first (default: ${ANALYTICS_DAYS - 1} days before \`to\`)`, '2026-11-01')),
  to: t.Optional(Day('the last, included (default: today)', '2026-11-30')),
});
export type DailyQuery = Static<typeof DailyQuery>;

export const DailyAnalyticsRow = t.Object({
  date: t.String({ format: 'date', description: 'UTC day' }),
  installs: Integer({ description: 'Installs that made an installer active: first installs and reinstalls' }),
  uninstalls: Integer(),
  activeInstalls: Integer({ description: 'At the end of the day' }),
  reviews: Integer({ description: 'Visible reviews first written that day' }),
  averageRating: t.Number({ description: 'At the end of the day, over the visible reviews written by then (their current rating); 0 when none' }),
});
export type DailyAnalyticsRow = Static<typeof DailyAnalyticsRow>;

export const DailyAnalytics = t.Object(
  { data: t.Array(DailyAnalyticsRow) },
  { description: 'One row per UTC day from `from` to `to`, oldest first, days without activity included as zeros' },
);
export type DailyAnalytics = Static<typeof DailyAnalytics>;

/** What the daily series answers: the rows as JSON, or as CSV text (`Accept: text/csv`). */
export const DailySeries = t.Union([DailyAnalytics, t.String({ description: 'With `Accept: text/csv`: the rows as CSV' })], {
  description: 'One row per UTC day, oldest first: JSON, or CSV with `Accept: text/csv`',
});

const Counters = {
  installCount: AppAnalytics.properties.installCount,
  activeInstalls: AppAnalytics.properties.activeInstalls,
  uninstallCount: AppAnalytics.properties.uninstallCount,
  reviewCount: AppAnalytics.properties.reviewCount,
  averageRating: AppAnalytics.properties.averageRating,
  ratingDistribution: RatingDistribution,
};

export const AppsAnalytics = t.Object(
  {
    apps: t.Array(
      t.Object({ id: t.String({ format: 'uuid' }), slug: t.String(), name: t.String(), ...Counters, daily: t.Array(DailyAnalyticsRow) }),
      { description: 'Each app, by name' },
    ),
    totals: t.Object(
      { ...Counters, daily: t.Array(DailyAnalyticsRow) },
      { description: "The sums over the apps; `averageRating` weighs every app's reviews alike" },
    ),
  },
  { description: "Each of the team's apps with its installs, uninstalls, reviews and daily rows, and their sums" },
);
export type AppsAnalytics = Static<typeof AppsAnalytics>;
