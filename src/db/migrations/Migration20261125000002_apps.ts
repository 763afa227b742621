import { Migration } from '@mikro-orm/migrations';

/**
 * App listings and what hangs off them: the transition log, revisions of approved apps,
 * OAuth clients admins register for developers, slug reservations, and the public side's
 * append-only events (installs, reviews) with the narrow stats tables jobs roll them into.
 */
export class Migration20261125000002_apps extends Migration {
  override up(): void {
    this.addSql(`create extension if not exists pg_trgm`);

    this.addSql(`
      create table oauth_clients (
        client_id text primary key,
        developer_id uuid not null references developers (id) on delete cascade,
        name text not null,
        created_at timestamptz not null
      )`);
    this.addSql(`create index oauth_clients_developer_id_idx on oauth_clients (developer_id)`);

    this.addSql(`
      create table apps (
        id uuid primary key,
        developer_id uuid not null references developers (id) on delete cascade,
        slug text not null,
        name text not null,
        description text not null,
        long_description text,
        long_description_html text,
        category text not null check (category in ('PRODUCTIVITY', 'UTILITIES', 'BUSINESS', 'DEVELOPER_TOOLS',
          'COMMUNICATION', 'ANALYTICS', 'AI_ML', 'FINANCE', 'EDUCATION', 'OTHER')),
        environment text not null check (environment in ('localhost', 'staging', 'production')),
        logo_url text,
        banner_url text,
        website_url text,
        support_url text,
        privacy_policy_url text,
        terms_of_service_url text,
        oauth_client_id text references oauth_clients (client_id),
        screenshots jsonb not null default '[]',
        review_notes text,
        status text not null default 'DRAFT' check (status in ('DRAFT', 'PENDING', 'APPROVED', 'REJECTED', 'SUSPENDED')),
        featured boolean not null default false,
        version integer not null default 1,
        submitted_at timestamptz,
        reviewed_at timestamptz,
        first_approved_at timestamptz,
        rejection_reason text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        -- Name outweighs the short description; the long description is left out on purpose (cost, noise).
        search_vector tsvector generated always as (
          setweight(to_tsvector('simple', coalesce(name, '')), 'A') ||
          setweight(to_tsvector('english', coalesce(name, '')), 'A') ||
          setweight(to_tsvector('english', coalesce(description, '')), 'B')
        ) stored
      )`);
    this.addSql(`create unique index apps_slug_key on apps (slug)`);
    this.addSql(`create index apps_developer_id_idx on apps (developer_id, created_at desc)`);
    this.addSql(`create index apps_public_idx on apps (status, category, environment) where status = 'APPROVED'`);
    this.addSql(`create index apps_search_idx on apps using gin (search_vector)`);
    this.addSql(`create index apps_name_trgm_idx on apps using gin (lower(name) gin_trgm_ops)`);
    this.addSql(`create index apps_pending_idx on apps (submitted_at) where status = 'PENDING'`);

    // Every slug ever handed out, so none is reused once it was an app's address.
    this.addSql(`
      create table app_slugs (
        slug text primary key,
        app_id uuid references apps (id) on delete set null,
        created_at timestamptz not null default now()
      )`);

    this.addSql(`
      create table app_transitions (
        id uuid primary key,
        app_id uuid not null references apps (id) on delete cascade,
        actor text not null,
        action text not null,
        from_status text not null,
        to_status text not null,
        version integer not null,
        reason text,
        created_at timestamptz not null
      )`);
    this.addSql(`create index app_transitions_app_id_idx on app_transitions (app_id, created_at)`);

    this.addSql(`
      create table app_revisions (
        id uuid primary key,
        app_id uuid not null references apps (id) on delete cascade,
        changes jsonb not null,
        status text not null default 'PENDING' check (status in ('PENDING', 'APPROVED', 'REJECTED')),
        version integer not null default 1,
        rejection_reason text,
        decided_by text,
        decided_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`);
    // At most one pending revision per app.
    this.addSql(`create unique index app_revisions_pending_key on app_revisions (app_id) where status = 'PENDING'`);

    this.addSql(`
      create table installs (
        id bigint generated always as identity primary key,
        app_id uuid not null references apps (id) on delete cascade,
        installer text not null,
        platform_user_id text,
        installed_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index installs_app_installer_key on installs (app_id, installer)`);
    this.addSql(`create index installs_app_day_idx on installs (app_id, installed_at)`);

    this.addSql(`
      create table reviews (
        id uuid primary key,
        app_id uuid not null references apps (id) on delete cascade,
        platform_user_id text not null,
        author_name text,
        rating smallint not null check (rating between 1 and 5),
        title text,
        body text,
        hidden boolean not null default false,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`);
    this.addSql(`create unique index reviews_app_user_key on reviews (app_id, platform_user_id)`);
    this.addSql(`create index reviews_app_recent_idx on reviews (app_id, updated_at desc) where not hidden`);

    // Advisory results of fetching each listed image (format and size read from the bytes).
    this.addSql(`
      create table asset_checks (
        app_id uuid not null references apps (id) on delete cascade,
        field text not null,
        url text not null,
        ok boolean not null,
        format text,
        width integer,
        height integer,
        problems jsonb not null default '[]',
        checked_at timestamptz not null,
        primary key (app_id, field)
      )`);

    // Narrow rows the rollup jobs write, so hot counters never touch the wide apps row.
    this.addSql(`
      create table app_stats (
        app_id uuid primary key references apps (id) on delete cascade,
        install_count integer not null default 0,
        review_count integer not null default 0,
        rating_sum integer not null default 0,
        average_rating numeric(3, 2) not null default 0,
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`
      create table category_counts (
        category text primary key,
        app_count integer not null default 0,
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`
      insert into category_counts (category) values ('PRODUCTIVITY'), ('UTILITIES'), ('BUSINESS'), ('DEVELOPER_TOOLS'),
        ('COMMUNICATION'), ('ANALYTICS'), ('AI_ML'), ('FINANCE'), ('EDUCATION'), ('OTHER')`);
  }
}
