import { defineEntity, p } from '@mikro-orm/postgresql';

/**
 * An app's counters, written only by the roll-ups (batch SQL in `stats.service.ts`); the entity
 * is for cold reads (the console, analytics).
 */
const AppStatsSchema = defineEntity({
  name: 'AppStats',
  tableName: 'app_stats',
  properties: {
    appId: p.uuid().primary(),
    installCount: p.integer().default(0),
    activeInstalls: p.integer().default(0),
    uninstallCount: p.integer().default(0),
    reviewCount: p.integer().default(0),
    ratingSum: p.integer().default(0),
    averageRating: p.decimal('number').default(0),
    updatedAt: p.datetime(),
  },
});

export class AppStats extends AppStatsSchema.class {}
AppStatsSchema.setClass(AppStats);
