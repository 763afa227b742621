import { Migration } from '@mikro-orm/migrations';

/** Fixed-window counters for the limits that must hold across processes (installs and reviews). */
export class Migration20261125000003_rate_limits extends Migration {
  override up(): void {
    this.addSql(`
      create unlogged table rate_limit_counters (
        bucket text not null,
        window_start timestamptz not null,
        hits integer not null,
        primary key (bucket, window_start)
      )`);
  }
}
