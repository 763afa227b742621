import { Migration } from '@mikro-orm/migrations';

/**
 * What the public catalogue needs to be served from memory and searched cheaply:
 * - `catalogue_version`, one row bumped in the transaction of every change the public catalogue
 *   shows, which every API process polls to invalidate its cached responses;
 * - `catalogue_words`, the dictionary of words in listings' names and descriptions that a search
 *   word with a typo is corrected against (pg_trgm's nearest neighbours, as the PostgreSQL manual's
 *   "text search integration" suggests), kept by a trigger so no write path has to remember it;
 * - indexes on the foreign keys that lacked one, so deleting an app or a client scans nothing.
 */
export class Migration20261201000001_catalogue_performance extends Migration {
  override up(): void {
    this.addSql(`
      create table catalogue_version (
        id boolean primary key default true check (id),
        version bigint not null default 1,
        changed_at timestamptz not null default now()
      )`);
    this.addSql(`insert into catalogue_version (id) values (true)`);

    this.addSql(`create table catalogue_words (word text primary key)`);
    this.addSql(`create index catalogue_words_trgm_idx on catalogue_words using gist (word gist_trgm_ops)`);
    // The words as the 'simple' configuration splits them (lowercased, not stemmed): corrections are real words.
    this.addSql(`
      create function catalogue_words_of(name text, description text) returns setof text language sql immutable as $$
        select distinct w from unnest(tsvector_to_array(to_tsvector('simple', coalesce(name, '') || ' ' || coalesce(description, '')))) w
        where length(w) between 2 and 40
      $$`);
    this.addSql(`
      create function apps_collect_words() returns trigger language plpgsql as $$
      begin
        insert into catalogue_words (word) select catalogue_words_of(new.name, new.description) on conflict do nothing;
        return new;
      end $$`);
    this.addSql(`
      create trigger apps_collect_words after insert or update of name, description on apps
      for each row execute function apps_collect_words()`);
    this.addSql(`insert into catalogue_words (word) select catalogue_words_of(name, description) from apps on conflict do nothing`);

    this.addSql(`create index app_revisions_app_id_idx on app_revisions (app_id)`);
    this.addSql(`create index apps_oauth_client_id_idx on apps (oauth_client_id) where oauth_client_id is not null`);
  }
}
