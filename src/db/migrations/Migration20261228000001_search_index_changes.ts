import { Migration } from '@mikro-orm/migrations';

/**
 * Each API process keeps the searchable catalogue in memory (`search-index.ts`, D199) and reads
 * only the search rows that changed since its last reading: their words, name, visibility or
 * filters (`changed_xid`), or only their install count (`counted_xid`, which the roll-ups move by
 * the thousand and which is read without the words). A row carries the transaction that last
 * changed it; a reader asks for the rows changed by transactions at or after the oldest one still
 * running at its previous reading (`pg_snapshot_xmin`), so a change committed late is read then,
 * never skipped, and one read twice is applied twice to the same effect. Set by trigger, so no
 * write path (the triggers that keep `app_search`, the roll-ups, a hand edit) can forget it.
 */
export class Migration20261228000001_search_index_changes extends Migration {
  override up(): void {
    this.addSql(`alter table app_search add column changed_xid xid8 not null default pg_current_xact_id()`);
    this.addSql(`alter table app_search add column counted_xid xid8 not null default pg_current_xact_id()`);
    this.addSql(`create index app_search_changed_idx on app_search (changed_xid, app_id)`);
    this.addSql(`create index app_search_counted_idx on app_search (counted_xid)`);
    this.addSql(`
      create function app_search_changed() returns trigger language plpgsql as $$
      begin
        if (new.search_vector, new.lower_name, new.visible, new.category, new.environment, new.featured)
           is distinct from (old.search_vector, old.lower_name, old.visible, old.category, old.environment, old.featured) then
          new.changed_xid := pg_current_xact_id();
        end if;
        if new.install_count is distinct from old.install_count then
          new.counted_xid := pg_current_xact_id();
        end if;
        return new;
      end $$`);
    this.addSql(`create trigger app_search_changed before update on app_search for each row execute function app_search_changed()`);
  }
}
