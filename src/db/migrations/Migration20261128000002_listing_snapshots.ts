import { Migration } from '@mikro-orm/migrations';

/**
 * A rejection keeps the listing as the reviewer saw it, so the next review of the resubmitted app
 * can show field by field what the developer changed since.
 */
export class Migration20261128000002_listing_snapshots extends Migration {
  override up(): void {
    this.addSql(`alter table app_transitions add column listing jsonb`);
    this.addSql(`create index app_transitions_decisions_idx on app_transitions (created_at) where action in ('approve', 'reject')`);
  }
}
