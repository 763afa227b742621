import { Migration } from '@mikro-orm/migrations';

/**
 * Every roll-up rewrites the search rows of the apps it counted (their active installs are indexed),
 * and each new row version adds its words to the GIN index's pending list, which every search
 * scans whole until it is merged. Left at PostgreSQL's 4 MB, the list grew to hundreds of pages
 * under a steady install load and a search's index scan took 5–8 ms instead of 1. Past 64 kB the
 * writer merges it (D194).
 */
export class Migration20261222000002_search_pending_list extends Migration {
  override up(): void {
    this.addSql(`alter index app_search_vector_idx set (gin_pending_list_limit = 64)`);
  }
}
