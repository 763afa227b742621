import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import type { RetentionConfig } from '../../config.ts';
import { collectUnreferencedAssets } from '../assets/asset-gc.ts';
// Raw SQL here is batch work (D106): housekeeping deletes by age in bounded batches.

/**
 * Housekeeping by age, run by one scheduled job across all workers. Each rule deletes the rows
 * of one table whose timestamp is older than its age, a batch at a time so no lock is held long.
 * Never cleaned here: the audit log, installs and reviews (every counter is derived from them),
 * app transitions and revisions. pg-boss's finished jobs are deleted by pg-boss itself, after
 * `RETENTION_JOBS` (each queue's `deleteAfterSeconds`, set in `jobs/queues.ts`).
 */
export interface RetentionRule {
  label: string;
  table: string;
  /** The column whose age decides. */
  timestamp: string;
  /** A configured age, or seconds (0: as soon as the timestamp has passed). */
  keep: keyof RetentionConfig | number;
  /** Only rows that also match this condition (SQL over the table's own columns). */
  where?: string;
}

export const RETENTION_RULES: RetentionRule[] = [
  { label: 'rate-limit windows', table: 'rate_limit_counters', timestamp: 'window_start', keep: 'rateLimits' },
  { label: 'sent e-mails and the dev outbox', table: 'emails', timestamp: 'sent_at', keep: 'emails' },
  { label: 'abandoned e-mail claims', table: 'email_claims', timestamp: 'claimed_until', keep: 'emails' },
  // A session past its absolute expiry can never be used again; an idle one ends sooner but is
  // refused by the session check itself, so it may wait for its absolute expiry here.
  { label: 'expired admin sessions', table: 'admin_sessions', timestamp: 'expires_at', keep: 0 },
  { label: 'expired review claims', table: 'review_claims', timestamp: 'expires_at', keep: 0 },
  // An expired CI token is refused by its signature check whatever its jti, so the replay record may go.
  { label: 'spent trusted-publishing tokens', table: 'trusted_publishing_tokens', timestamp: 'expires_at', keep: 0 },
  // The delivery log developers read; a delivery still being retried stays whatever its age.
  { label: 'settled webhook deliveries', table: 'webhook_deliveries', timestamp: 'created_at', keep: 'webhooks', where: "status <> 'pending'" },
  {
    label: 'webhook events',
    table: 'webhook_events',
    timestamp: 'created_at',
    keep: 'webhooks',
    where: 'not exists (select 1 from webhook_deliveries d where d.event_id = webhook_events.id)',
  },
];

const BATCH = 5_000;

async function deleteOlderThan(em: EntityManager, rule: RetentionRule, seconds: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await executeNamed<{ n: number }>(
      em,
      `with gone as (
         delete from ${rule.table} where ctid in (
           select ctid from ${rule.table}
           where ${rule.timestamp} < now() - make_interval(secs => :seconds)${rule.where ? ` and ${rule.where}` : ''} limit ${BATCH})
         returning 1)
       select count(*)::int as n from gone`,
      { seconds },
    );
    const count = rows[0]?.n ?? 0;
    deleted += count;
    if (count < BATCH) return deleted;
  }
}

/** Applies every rule and collects unreferenced assets; returns how many rows each removed. */
export async function applyRetention(em: EntityManager, ages: RetentionConfig): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const rule of RETENTION_RULES) {
    removed[rule.label] = await deleteOlderThan(em, rule, typeof rule.keep === 'number' ? rule.keep : ages[rule.keep]);
  }
  removed['unreferenced assets'] = await collectUnreferencedAssets(em, ages.assets);
  return removed;
}
