import { defineEntity, p } from '@mikro-orm/postgresql';

/**
 * An app's figures for one UTC day, written only by the roll-ups (batch SQL in `daily-stats.ts`);
 * the entity is for the analytics' and the dashboard's cold reads, which sum these narrow rows.
 */
const AppDailyStatsSchema = defineEntity({
  name: 'AppDailyStats',
  tableName: 'app_daily_stats',
  properties: {
    appId: p.uuid().primary(),
    /** YYYY-MM-DD, in UTC. */
    day: p.date().primary(),
    newInstalls: p.integer().default(0),
    reinstalls: p.integer().default(0),
    uninstalls: p.integer().default(0),
    reviews: p.integer().default(0),
    ratingSum: p.integer().default(0),
  },
});

export class AppDailyStats extends AppDailyStatsSchema.class {}
AppDailyStatsSchema.setClass(AppDailyStats);
