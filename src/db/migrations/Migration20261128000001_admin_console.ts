import { Migration } from '@mikro-orm/migrations';

/**
 * What the admin console keeps: server-side sessions (only a hash of the cookie's token, so a
 * read of the table signs nobody in), review claims that expire, the last TOTP time step an admin
 * used (a code is accepted once), the role an audited action was taken under, and an index for
 * the dashboard's installs chart.
 */
export class Migration20261128000001_admin_console extends Migration {
  override up(): void {
    this.addSql(`
      create table admin_sessions (
        token_hash text primary key,
        admin_id uuid not null references admins (id) on delete cascade,
        csrf_token text not null,
        -- 'totp' and 'enrol' are half-signed-in sessions that may only finish the second factor.
        stage text not null check (stage in ('totp', 'enrol', 'active')),
        pending_totp_secret text,
        flash text,
        created_at timestamptz not null default now(),
        last_seen_at timestamptz not null default now(),
        expires_at timestamptz not null
      )`);
    this.addSql(`create index admin_sessions_admin_id_idx on admin_sessions (admin_id)`);
    this.addSql(`create index admin_sessions_expires_at_idx on admin_sessions (expires_at)`);

    this.addSql(`
      create table review_claims (
        subject text primary key,
        admin_id uuid not null references admins (id) on delete cascade,
        claimed_at timestamptz not null default now(),
        expires_at timestamptz not null
      )`);

    this.addSql(`alter table admins add column totp_last_step bigint`);
    this.addSql(`alter table audit_log add column actor_role text`);
    this.addSql(`create index audit_log_created_at_idx on audit_log (created_at desc)`);
    this.addSql(`create index audit_log_action_idx on audit_log (action, created_at desc)`);
    // The dashboard's installs-per-day chart reads a time range across all apps; installs are
    // appended in time order, so a BRIN index answers it for almost nothing on each insert.
    this.addSql(`create index installs_installed_at_brin on installs using brin (installed_at)`);
  }
}
