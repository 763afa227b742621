import { Migration } from '@mikro-orm/migrations';

/** Retention deletes webhook events and deliveries by age (`src/modules/retention`): find the old ones without a scan. */
export class Migration20261212000001_webhook_retention extends Migration {
  override up(): void {
    this.addSql('create index webhook_events_created_at_idx on webhook_events (created_at)');
    this.addSql('create index webhook_deliveries_created_at_idx on webhook_deliveries (created_at)');
  }
}
