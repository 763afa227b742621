import { Migration } from '@mikro-orm/migrations';

/**
 * The search index keeps a copy of the dictionary (`word-dictionary.ts`, D205) and reads only the
 * words added since its last reading, as it reads `app_search` (the migration
 * `search_index_changes` says why a reader asking from the oldest running transaction on misses
 * none). Words are only ever added, so the transaction that added one is all it needs.
 */
export class Migration20261229000001_dictionary_changes extends Migration {
  override up(): void {
    this.addSql(`alter table catalogue_words add column added_xid xid8 not null default pg_current_xact_id()`);
    this.addSql(`create index catalogue_words_added_idx on catalogue_words (added_xid)`);
  }
}
