import { Migration } from '@mikro-orm/migrations';

/**
 * Every roll-up rewrites each index of the stats rows it moves (their counters are in the sort
 * indexes, so no update is HOT), and after a checkpoint a full image of each page it touches. The
 * featured list, the only reader of `app_stats_installs_idx`, now walks `app_stats_active_idx` as
 * `sort=installs` does (D231), so the roll-ups keep one index fewer.
 */
export class Migration20270102000001_stats_without_installs_index extends Migration {
  override up(): void {
    this.addSql('drop index if exists app_stats_installs_idx');
  }
}
