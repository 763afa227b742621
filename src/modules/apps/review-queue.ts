import type { EntityManager } from '@mikro-orm/postgresql';
import { containsPattern, pageOfRows, whereOf, type ListPage, type ListQuery } from '../../http/console-lists.ts';
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

export interface QueueListing extends QueueEntry {
  name: string;
  slug: string;
  developer: { id: string; name: string };
  /** A PENDING app that was rejected before. */
  resubmission: boolean;
  /** A revision asking for platform scopes the live listing does not have. */
  newPermissions: boolean;
}

// Scopes of a revision's change set missing from the live listing (a JSON null or no `permissions` adds none).
const NEW_PERMISSIONS = `q.kind = 'revision' and exists (
  select 1 from app_revisions r
  cross join jsonb_array_elements(case when jsonb_typeof(r.changes->'permissions') = 'array' then r.changes->'permissions' else '[]'::jsonb end) p
  where r.id = q.id and not coalesce(a.permissions, '[]'::jsonb) @> jsonb_build_array(jsonb_build_object('scope', p->>'scope')))`;

/** A page of the queue as reviewers list it, oldest first; search and the kind filter keep each entry's place. */
export function reviewQueuePage(em: EntityManager, filter: ListQuery & { kind: 'app' | 'revision' | null }): Promise<ListPage<QueueListing>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where = whereOf([
    filter.kind && ['q.kind = ?', filter.kind],
    pattern && ['a.name ilike ? or a.slug ilike ? or d.name ilike ? or d.email ilike ?', pattern, pattern, pattern, pattern],
  ]);
  return pageOfRows(
    em,
    {
      select: `q.*, a.name, a.slug, d.id as developer_id, d.name as developer_name,
               q.kind = 'app' and exists (select 1 from app_transitions t where t.app_id = a.id and t.action = 'reject') as resubmission,
               ${NEW_PERMISSIONS} as new_permissions`,
      from: `(${QUEUE}) q join apps a on a.id = q.app_id join developers d on d.id = a.developer_id`,
      where,
      orderBy: 'q.position',
    },
    filter,
    (row: QueueRow & { name: string; slug: string; developer_id: string; developer_name: string; resubmission: boolean; new_permissions: boolean }) => ({
      ...toEntry(row),
      name: row.name,
      slug: row.slug,
      developer: { id: row.developer_id, name: row.developer_name },
      resubmission: row.resubmission,
      newPermissions: row.new_permissions,
    }),
  );
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
