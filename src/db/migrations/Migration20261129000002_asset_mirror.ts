import { Migration } from '@mikro-orm/migrations';

/**
 * The mirror of reviewed images: bytes stored once per SHA-256, the check that fetched them
 * pointing at them, and the copies an approval published for each listed image. Foreign keys
 * keep the collector from deleting anything still referred to.
 */
export class Migration20261129000002_asset_mirror extends Migration {
  override up(): void {
    this.addSql(`
      create table assets (
        sha256 text primary key check (sha256 ~ '^[0-9a-f]{64}$'),
        extension text not null check (extension in ('png', 'jpg')),
        content_type text not null check (content_type in ('image/png', 'image/jpeg')),
        byte_size integer not null check (byte_size > 0),
        bytes bytea not null,
        created_at timestamptz not null default now(),
        -- The collector's grace period counts from the last time a check stored these bytes.
        stored_at timestamptz not null default now()
      )`);
    // Images are compressed already: store them as they are, out of line.
    this.addSql(`alter table assets alter column bytes set storage external`);
    this.addSql(`create index assets_stored_at_idx on assets (stored_at)`);

    // A check is now of one URL in one place (the live listing or a pending revision may name
    // different URLs for the same field), and records the copy it stored.
    this.addSql(`alter table asset_checks drop constraint asset_checks_pkey`);
    this.addSql(`alter table asset_checks add primary key (app_id, field, url)`);
    this.addSql(`alter table asset_checks add column sha256 text references assets (sha256)`);
    this.addSql(`create index asset_checks_sha256_idx on asset_checks (sha256)`);

    // What the public listing shows for each image, fixed when an app or a revision was approved.
    this.addSql(`
      create table published_assets (
        app_id uuid not null references apps (id) on delete cascade,
        field text not null,
        source_url text not null,
        sha256 text not null references assets (sha256),
        extension text not null,
        published_at timestamptz not null default now(),
        primary key (app_id, field)
      )`);
    this.addSql(`create index published_assets_sha256_idx on published_assets (sha256)`);
  }
}
