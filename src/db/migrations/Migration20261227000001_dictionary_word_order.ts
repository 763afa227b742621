import { Migration } from '@mikro-orm/migrations';

/**
 * A transaction that adds words to the dictionary holds each new word until it commits. Two that
 * added the same new words in different orders (the statement trigger's `distinct` hashed them, so
 * the order changed with the set) waited on each other, and PostgreSQL ended one with a deadlock:
 * a listing's creation answered 500. Every writer now adds its words in one order, the words'
 * own, so one waits for the other instead (D196).
 */
export class Migration20261227000001_dictionary_word_order extends Migration {
  override up(): void {
    this.addSql(`
      create or replace function catalogue_words_of(name text, description text) returns setof text language sql immutable as $$
        select distinct w from unnest(tsvector_to_array(to_tsvector('simple', coalesce(name, '') || ' ' || coalesce(description, '')))) w
        where length(w) between 2 and 40
        order by w
      $$`);
    this.addSql(`
      create or replace function apps_collect_inserted_words() returns trigger language plpgsql as $$
      begin
        insert into catalogue_words (word)
        select distinct w from inserted_apps a, catalogue_words_of(a.name, a.description) w order by w on conflict do nothing;
        return null;
      end $$`);
  }
}
