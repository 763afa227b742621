import { Migration } from '@mikro-orm/migrations';

/**
 * Developer webhooks: endpoints (signing secrets sealed with a key from configuration), the
 * events that happened, and one delivery per endpoint per event with its latest attempt.
 */
export class Migration20261130000001_webhooks extends Migration {
  override up(): void {
    this.addSql(`
      create table webhook_endpoints (
        id uuid primary key,
        developer_id uuid not null references developers (id) on delete cascade,
        url text not null,
        description text,
        events text[] not null,
        enabled boolean not null default true,
        disabled_reason text check (disabled_reason in ('failing')),
        disabled_at timestamptz,
        failing_since timestamptz,
        secret_sealed text not null,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`);
    this.addSql(`create index webhook_endpoints_developer_id_idx on webhook_endpoints (developer_id)`);

    this.addSql(`
      create table webhook_events (
        id uuid primary key,
        developer_id uuid not null references developers (id) on delete cascade,
        type text not null,
        body text not null,
        dedupe_key text,
        created_at timestamptz not null
      )`);
    // An event that a periodic scan may find twice (a key about to expire) is emitted once.
    this.addSql(`create unique index webhook_events_dedupe_key_key on webhook_events (dedupe_key)`);
    this.addSql(`create index webhook_events_developer_id_idx on webhook_events (developer_id)`);

    this.addSql(`
      create table webhook_deliveries (
        id uuid primary key,
        endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
        event_id uuid not null references webhook_events (id) on delete cascade,
        status text not null check (status in ('pending', 'succeeded', 'failed')),
        attempts integer not null default 0,
        retries boolean not null,
        next_attempt_at timestamptz,
        leased_until timestamptz,
        last_attempt_at timestamptz,
        status_code integer,
        latency_ms integer,
        error text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        unique (endpoint_id, event_id)
      )`);
    this.addSql(`create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at desc, id desc)`);
    this.addSql(`create index webhook_deliveries_event_id_idx on webhook_deliveries (event_id)`);
    // The sweep for pending deliveries whose job was lost.
    this.addSql(`create index webhook_deliveries_pending_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`);
    // The console's list of failing deliveries: those whose latest attempt failed.
    this.addSql(`create index webhook_deliveries_failing_idx on webhook_deliveries (last_attempt_at desc, id desc) where error is not null`);
  }
}
