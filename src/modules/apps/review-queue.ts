import type { EntityManager } from '@mikro-orm/postgresql';
import { REVIEW_TARGET_HOURS } from '../notifications/notifications.service.ts';

/**
 * The review queue, as one ordering both sides share: PENDING apps (since their submission) and
 * pending revisions (since first proposed), oldest first. Reviewers work down it in the console;
 * developers see their place in it and when to expect a decision, estimated from the median time
 * decisions took over the last 30 days (the 48-hour target until there are enough of them).
 */
export interface QueueEntry {
  kind: 'app' | 'revision';
  /** The app's id, or the revision's. */
  id: string;
  appId: string;
  waitingSince: Date;
  position: number;
}

interface QueueRow {
  kind: 'app' | 'revision';
  id: string;
  app_id: string;
  waiting_since: string;
  position: string;
}

const QUEUE = `
  select kind, id, app_id, waiting_since, row_number() over (order by waiting_since, id) as position from (
    select 'app' as kind, id, id as app_id, submitted_at as waiting_since from apps where status = 'PENDING'
    union all
    select 'revision', id, app_id, created_at from app_revisions where status = 'PENDING'
  ) q`;

const toEntry = (row: QueueRow): QueueEntry => ({
  kind: row.kind,
  id: row.id,
  appId: row.app_id,
  waitingSince: new Date(row.waiting_since),
  position: Number(row.position),
});

/** The whole queue, oldest first (at most `limit`). */
export async function reviewQueue(em: EntityManager, limit = 200): Promise<QueueEntry[]> {
  const rows = await em.execute<QueueRow[]>(`${QUEUE} order by position limit ?`, [limit]);
  return rows.map(toEntry);
}

/** The queue entries of these apps (their own submission, their pending revision, or both). */
export async function queueEntriesOf(em: EntityManager, appIds: readonly string[]): Promise<QueueEntry[]> {
  if (appIds.length === 0) return [];
  const rows = await em.execute<QueueRow[]>(`select * from (${QUEUE}) ranked where app_id in (${appIds.map(() => '?').join(', ')})`, [
    ...appIds,
  ]);
  return rows.map(toEntry);
}

/** Fewer decisions than this in the window, and the estimate falls back to the target. */
const MIN_DECISIONS = 5;
const CACHE_MS = 60_000;
/** Per ORM (so per database), keyed by its configuration, which every fork shares. */
const cache = new WeakMap<object, { at: number; ms: number }>();

/** Median time from submission (or proposal) to decision over the last 30 days; cached for a minute per process. */
export async function medianDecisionMs(em: EntityManager): Promise<number> {
  const cached = cache.get(em.config);
  if (cached && Date.now() - cached.at < CACHE_MS) return cached.ms;
  const [row] = await em.execute<{ seconds: number | null; decisions: number }[]>(
    `with took as (
       select extract(epoch from d.created_at - s.submitted_at) as seconds
       from app_transitions d
       cross join lateral (select max(created_at) as submitted_at from app_transitions s
                           where s.app_id = d.app_id and s.action = 'submit' and s.created_at <= d.created_at) s
       where d.action in ('approve', 'reject') and d.created_at > now() - interval '30 days' and s.submitted_at is not null
       union all
       select extract(epoch from decided_at - created_at) from app_revisions
       where status <> 'PENDING' and decided_at > now() - interval '30 days'
     )
     select percentile_cont(0.5) within group (order by seconds) as seconds, count(*)::int as decisions from took`,
  );
  const ms = row && row.decisions >= MIN_DECISIONS && row.seconds !== null ? Number(row.seconds) * 1000 : REVIEW_TARGET_HOURS * 3_600_000;
  cache.set(em.config, { at: Date.now(), ms });
  return ms;
}

export interface ReviewStanding {
  queuePosition: number;
  expectedDecisionBy: string;
}

/** Where an entry stands: its place, and when a decision is expected (never earlier than now). */
export function standingOf(entry: QueueEntry, medianMs: number, now = Date.now()): ReviewStanding {
  return {
    queuePosition: entry.position,
    expectedDecisionBy: new Date(Math.max(entry.waitingSince.getTime() + medianMs, now)).toISOString(),
  };
}
