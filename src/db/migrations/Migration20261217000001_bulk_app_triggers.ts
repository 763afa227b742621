import { Migration } from '@mikro-orm/migrations';

/**
 * An app's stats row and its words in the dictionary were written by row-level triggers: one
 * insert into each table per app, which made a multi-row insert of 1,000 apps (the seed) pay
 * 2,000 single-row statements. Statement-level triggers over the inserted rows (a transition
 * table) write them in one statement each, whatever the number of rows. Updates keep their
 * row-level trigger: only one that changes a name or a description touches the dictionary.
 */
export class Migration20261217000001_bulk_app_triggers extends Migration {
  override up(): void {
    this.addSql(`drop trigger apps_create_stats on apps`);
    this.addSql(`
      create or replace function apps_create_stats() returns trigger language plpgsql as $$
      begin
        insert into app_stats (app_id) select id from inserted_apps on conflict do nothing;
        return null;
      end $$`);
    this.addSql(`
      create trigger apps_create_stats after insert on apps
      referencing new table as inserted_apps for each statement execute function apps_create_stats()`);

    this.addSql(`drop trigger apps_collect_words on apps`);
    this.addSql(`
      create function apps_collect_inserted_words() returns trigger language plpgsql as $$
      begin
        insert into catalogue_words (word)
        select distinct w from inserted_apps a, catalogue_words_of(a.name, a.description) w on conflict do nothing;
        return null;
      end $$`);
    this.addSql(`
      create trigger apps_collect_inserted_words after insert on apps
      referencing new table as inserted_apps for each statement execute function apps_collect_inserted_words()`);
    this.addSql(`
      create trigger apps_collect_words after update of name, description on apps
      for each row execute function apps_collect_words()`);
  }
}
