import { Migration } from '@mikro-orm/migrations';

/**
 * Teams: publishers that own apps together. Existing apps, keys and webhook endpoints stay
 * personal (their new `team_id` is null); nothing else moves.
 */
export class Migration20261214000001_teams extends Migration {
  override up(): void {
    this.addSql(`
      create table teams (
        id uuid primary key,
        name text not null,
        website_url text,
        verified_domain text,
        pending_domain text,
        domain_token text,
        suspended_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`);
    // One team per domain.
    this.addSql(`create unique index teams_verified_domain_key on teams (verified_domain) where verified_domain is not null`);
    this.addSql(`create index teams_name_idx on teams (lower(name))`);

    this.addSql(`
      create table team_members (
        id uuid primary key,
        team_id uuid not null references teams (id) on delete cascade,
        developer_id uuid not null references developers (id) on delete cascade,
        role text not null check (role in ('owner', 'maintainer', 'analyst')),
        joined_at timestamptz not null,
        unique (team_id, developer_id)
      )`);
    this.addSql(`create index team_members_developer_id_idx on team_members (developer_id)`);

    this.addSql(`
      create table team_invitations (
        id uuid primary key,
        team_id uuid not null references teams (id) on delete cascade,
        email text not null,
        role text not null check (role in ('owner', 'maintainer', 'analyst')),
        invited_by uuid references developers (id) on delete set null,
        status text not null default 'PENDING' check (status in ('PENDING', 'ACCEPTED', 'DECLINED', 'WITHDRAWN')),
        created_at timestamptz not null,
        expires_at timestamptz not null,
        answered_at timestamptz
      )`);
    this.addSql(`create index team_invitations_team_idx on team_invitations (team_id) where status = 'PENDING'`);
    this.addSql(`create index team_invitations_email_idx on team_invitations (lower(email)) where status = 'PENDING'`);

    this.addSql(`
      create table team_audit (
        id uuid primary key,
        team_id uuid not null references teams (id) on delete cascade,
        actor_developer_id uuid references developers (id) on delete set null,
        action text not null,
        target text,
        details jsonb,
        created_at timestamptz not null
      )`);
    this.addSql(`create index team_audit_team_idx on team_audit (team_id, created_at desc, id desc)`);

    // A team that owns an app cannot be deleted (409 TEAM_NOT_EMPTY); the database holds that too.
    this.addSql(`alter table apps add column team_id uuid references teams (id) on delete restrict`);
    this.addSql(`create index apps_team_id_idx on apps (team_id) where team_id is not null`);
    this.addSql(`alter table api_keys add column team_id uuid references teams (id) on delete cascade`);
    this.addSql(`alter table webhook_endpoints add column team_id uuid references teams (id) on delete cascade`);
    this.addSql(`create index webhook_endpoints_team_id_idx on webhook_endpoints (team_id) where team_id is not null`);
  }
}
