import { Migration } from '@mikro-orm/migrations';

/**
 * The processes' counter poll (`catalogue/counter-changes.ts`) finds the changed stats rows by the
 * transaction that wrote them, as the search index does, not by `updated_at` (D230). So
 * `counted_xid` now moves with every update of a stats row, reviews' included, and the
 * `updated_at` index goes: each roll-up rewrote it for every app it moved.
 */
export class Migration20270101000001_counter_changes_by_xid extends Migration {
  override up(): void {
    this.addSql(`drop trigger app_stats_counted on app_stats`);
    this.addSql(`create trigger app_stats_counted before update on app_stats for each row execute function app_stats_counted()`);
    this.addSql(`drop index app_stats_updated_at_idx`);
  }
}
