import { Migration } from '@mikro-orm/migrations';

/**
 * Anonymous installs by `installationId` count only within a per-network daily budget: every
 * install is still recorded, and `counted` says whether it adds to the app's `installCount`.
 * `source_network` (an IPv4 address or an IPv6 /64) is kept for installation-id installs only,
 * the ones the budget applies to.
 */
export class Migration20261127000002_install_budget extends Migration {
  override up(): void {
    this.addSql(`alter table installs add column counted boolean not null default true, add column source_network text`);
    this.addSql(`create index installs_budget_idx on installs (app_id, source_network, installed_at) where source_network is not null`);
  }
}
