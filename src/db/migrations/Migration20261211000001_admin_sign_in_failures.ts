import { Migration } from '@mikro-orm/migrations';

/**
 * Failed admin sign-ins, kept so an account's owner sees them after signing in (password or code,
 * and the address they came from), and the time of each admin's last completed sign-in, which
 * tells "new since you last signed in" apart. Throttling itself lives in `rate_limit_counters`.
 */
export class Migration20261211000001_admin_sign_in_failures extends Migration {
  override up(): void {
    this.addSql(`
      create table admin_sign_in_failures (
        id bigint generated always as identity primary key,
        admin_id uuid not null references admins (id) on delete cascade,
        address text not null,
        step text not null check (step in ('password', 'code')),
        failed_at timestamptz not null default now()
      )`);
    this.addSql(`create index admin_sign_in_failures_admin_idx on admin_sign_in_failures (admin_id, failed_at)`);
    this.addSql(`create index admin_sign_in_failures_failed_at_idx on admin_sign_in_failures (failed_at)`);
    this.addSql(`alter table admins add column last_sign_in_at timestamptz`);
  }
}
