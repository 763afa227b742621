import { Migration } from '@mikro-orm/migrations';

/**
 * Trusted publishing: the CI workflows an app's owners allow to publish it, the OIDC token ids
 * already exchanged (a token is good once), and keys bound to one app (the exchanged keys).
 */
export class Migration20261218000001_trusted_publishing extends Migration {
  override up(): void {
    this.addSql(`
      create table trusted_publishers (
        id uuid primary key,
        app_id uuid not null references apps (id) on delete cascade,
        created_by_id uuid not null references developers (id) on delete cascade,
        issuer text not null,
        repository text not null,
        workflow text not null,
        environment text null,
        created_at timestamptz not null default now()
      )`);
    // One workflow (and environment) publishes one app: a token then names exactly one app.
    this.addSql(`
      create unique index trusted_publishers_identity_unique
        on trusted_publishers (issuer, lower(repository), workflow, coalesce(environment, ''))`);
    this.addSql(`create index trusted_publishers_app_idx on trusted_publishers (app_id)`);
    this.addSql(`
      create table trusted_publishing_tokens (
        issuer text not null,
        jti text not null,
        expires_at timestamptz not null,
        used_at timestamptz not null default now(),
        primary key (issuer, jti)
      )`);
    this.addSql(`alter table api_keys add column app_id uuid null references apps (id) on delete cascade`);
  }
}
