import { Migration } from '@mikro-orm/migrations';

/** Developers, API keys, admin accounts and the audit log. */
export class Migration20261125000001_identity extends Migration {
  override up(): void {
    this.addSql(`
      create table developers (
        id uuid primary key,
        platform_user_id text not null,
        name text not null,
        email text not null,
        company_name text,
        website_url text,
        bio text,
        status text not null default 'PENDING_VERIFICATION'
          check (status in ('PENDING_VERIFICATION', 'VERIFIED', 'SUSPENDED')),
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`);
    this.addSql(`create unique index developers_platform_user_id_key on developers (platform_user_id)`);
    // E-mail addresses are unique regardless of case.
    this.addSql(`create unique index developers_email_key on developers (lower(email))`);

    this.addSql(`
      create table api_keys (
        id uuid primary key,
        developer_id uuid not null references developers (id) on delete cascade,
        parent_key_id uuid references api_keys (id) on delete cascade,
        name text not null,
        scopes text[] not null,
        key_hash text not null,
        secret_id text not null,
        last4 text not null,
        expires_at timestamptz not null,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz not null
      )`);
    this.addSql(`create unique index api_keys_key_hash_key on api_keys (key_hash)`);
    this.addSql(`create index api_keys_developer_id_idx on api_keys (developer_id)`);
    this.addSql(`create index api_keys_parent_key_id_idx on api_keys (parent_key_id)`);

    this.addSql(`
      create table admins (
        id uuid primary key,
        email text not null,
        password_hash text not null,
        role text not null check (role in ('reviewer', 'support', 'owner')),
        totp_secret text,
        created_at timestamptz not null
      )`);
    this.addSql(`create unique index admins_email_key on admins (lower(email))`);

    this.addSql(`
      create table audit_log (
        id uuid primary key,
        actor text not null,
        action text not null,
        subject_type text not null,
        subject_id text not null,
        before jsonb,
        after jsonb,
        reason text,
        created_at timestamptz not null
      )`);
    this.addSql(`create index audit_log_subject_idx on audit_log (subject_type, subject_id, created_at)`);
    this.addSql(`
      create function audit_log_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'audit_log is append-only';
      end $$`);
    this.addSql(`
      create trigger audit_log_append_only before update or delete on audit_log
      for each row execute function audit_log_append_only()`);
  }
}
