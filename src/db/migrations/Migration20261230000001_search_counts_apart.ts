import { Migration } from '@mikro-orm/migrations';

/**
 * Install counts leave the search table (D217). Every roll-up copied each moved app's active
 * installs into its `app_search` row, and since that count was indexed, PostgreSQL wrote the row
 * anew with every one of its indexes: the GIN index's entry for each of the app's words and the
 * install-order index, which carried the whole vector. That copy was about three quarters of a
 * roll-up's time. Searches now take the count from `app_stats`, whose `active_installs` index
 * orders the walk of common words, and whose own `counted_xid` tells the in-process index which
 * counts moved (as `app_search.counted_xid` did: set by trigger, so no write path can forget it).
 */
export class Migration20261230000001_search_counts_apart extends Migration {
  override up(): void {
    this.addSql(`alter table app_stats add column counted_xid xid8 not null default pg_current_xact_id()`);
    this.addSql(`create index app_stats_counted_idx on app_stats (counted_xid)`);
    this.addSql(`
      create function app_stats_counted() returns trigger language plpgsql as $$
      begin
        new.counted_xid := pg_current_xact_id();
        return new;
      end $$`);
    this.addSql(`
      create trigger app_stats_counted before update on app_stats
      for each row when (new.active_installs is distinct from old.active_installs) execute function app_stats_counted()`);
    this.addSql(`drop trigger app_search_installs on app_stats`);
    this.addSql(`drop function app_search_installs()`);
    this.addSql(`
      create or replace function app_search_changed() returns trigger language plpgsql as $$
      begin
        if (new.search_vector, new.lower_name, new.visible, new.category, new.environment, new.featured)
           is distinct from (old.search_vector, old.lower_name, old.visible, old.category, old.environment, old.featured) then
          new.changed_xid := pg_current_xact_id();
        end if;
        return new;
      end $$`);
    this.addSql(`alter table app_search drop column install_count, drop column counted_xid`);
  }
}
