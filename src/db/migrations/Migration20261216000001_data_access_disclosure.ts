import { Migration } from '@mikro-orm/migrations';

/** What an app may do with a workspace's data: its declared scopes and how it handles the data (null: not declared). */
export class Migration20261216000001_data_access_disclosure extends Migration {
  override up(): void {
    this.addSql('alter table apps add column permissions jsonb null, add column data_handling jsonb null');
  }
}
