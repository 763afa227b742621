import { Migration } from '@mikro-orm/migrations';

/**
 * Counter roll-ups no longer move the catalogue version; API processes find the apps whose
 * counters changed by `app_stats.updated_at` instead (`catalogue/counter-changes.ts`), a range
 * read every half second that must not scan 100,000 rows.
 */
export class Migration20261217000002_counter_changes extends Migration {
  override up(): void {
    this.addSql(`create index app_stats_updated_at_idx on app_stats (updated_at)`);
  }
}
