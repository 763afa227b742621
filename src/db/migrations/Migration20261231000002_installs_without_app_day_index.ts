import { Migration } from '@mikro-orm/migrations';

/**
 * Every install writes each of its table's indexes, a leaf page at random in the large ones, and
 * after a checkpoint a full image of that page into the WAL. `installs_app_day_idx` (app, time) no
 * longer serves any statement: the roll-ups read installs by id (the primary key), the budget by
 * its own index, the nightly repair's per-app count by the unique (app, installer) key (D223).
 */
export class Migration20261231000002_installs_without_app_day_index extends Migration {
  override up(): void {
    this.addSql('drop index if exists installs_app_day_idx');
  }
}
