import { Migration } from '@mikro-orm/migrations';

/**
 * Installs share one roll-up that follows a watermark (the last install id it counted) instead of
 * one job per app: a burst across thousands of apps costs one job a second, not one per app.
 * Installs before this migration were rolled up per app already.
 */
export class Migration20261203000001_install_watermark extends Migration {
  override up(): void {
    this.addSql(`
      create table stats_watermarks (
        name text primary key,
        last_id bigint not null,
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`insert into stats_watermarks (name, last_id) select 'installs', coalesce(max(id), 0) from installs`);
  }
}
