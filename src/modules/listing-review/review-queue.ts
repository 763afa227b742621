import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { containsPattern, pageOfRows, whereOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { REVIEW_TARGET_HOURS } from '../notifications/notifications.service.ts';
import { consoleMirrorPath } from '../assets/asset-files.ts';
import type { QueueFlag } from '../../../views/admin/listing-review.ts';

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

/** What a reviewer triages by; each is also a filter of the queue. */
export const QUEUE_FLAGS = ['images', 'lookalike', 'permissions', 'resubmitted'] as const satisfies readonly QueueFlag[];
export type { QueueFlag };

export interface QueueListing extends QueueEntry {
  name: string;
  slug: string;
  developer: { id: string; name: string };
  flags: QueueFlag[];
  /** The stored copy of the listing's logo (null: none stored, so none is shown). */
  logoUrl: string | null;
}

/** Each flag as a condition on a queue entry `q` of app `a` (computed per row of a page: the queue is short). */
const FLAG_SQL: Record<QueueFlag, string> = {
  // A check of one of the app's images found a problem (or could not fetch it).
  images: `exists (select 1 from asset_checks c where c.app_id = a.id and not c.ok)`,
  // An approved app with a similar name: possible impersonation (the same test as the review page's).
  lookalike: `exists (select 1 from apps o where o.status = 'APPROVED' and o.id <> a.id and lower(o.name) % lower(a.name))`,
  // Scopes of a revision's change set missing from the live listing (a JSON null or no `permissions` adds none).
  permissions: `q.kind = 'revision' and exists (
    select 1 from app_revisions r
    cross join jsonb_array_elements(case when jsonb_typeof(r.changes->'permissions') = 'array' then r.changes->'permissions' else '[]'::jsonb end) p
    where r.id = q.id and not coalesce(a.permissions, '[]'::jsonb) @> jsonb_build_array(jsonb_build_object('scope', p->>'scope')))`,
  resubmitted: `q.kind = 'app' and exists (select 1 from app_transitions t where t.app_id = a.id and t.action = 'reject')`,
};

interface QueueListingRow extends QueueRow {
  name: string;
  slug: string;
  developer_id: string;
  developer_name: string;
  logo: string | null;
  flag_images: boolean;
  flag_lookalike: boolean;
  flag_permissions: boolean;
  flag_resubmitted: boolean;
}

export interface QueueFilter extends ListQuery {
  kind: 'app' | 'revision' | null;
  flag: QueueFlag | null;
}

const QUEUE_FROM = `(${QUEUE}) q join apps a on a.id = q.app_id join developers d on d.id = a.developer_id`;

function queueWhere(filter: QueueFilter, extra: (readonly [string, Record<string, unknown>?])[] = []) {
  const pattern = filter.q && containsPattern(filter.q);
  return whereOf([
    filter.kind && ['q.kind = :kind', { kind: filter.kind }],
    filter.flag && [FLAG_SQL[filter.flag]],
    pattern && ['a.name ilike :pattern or a.slug ilike :pattern or d.name ilike :pattern or d.email ilike :pattern', { pattern }],
    ...extra,
  ]);
}

/** A page of the queue as reviewers list it, oldest first; search and the filters keep each entry's place. */
export function reviewQueuePage(em: EntityManager, filter: QueueFilter): Promise<ListPage<QueueListing>> {
  return pageOfRows(
    em,
    {
      select: `q.*, a.name, a.slug, d.id as developer_id, d.name as developer_name,
               (select s.sha256 || '.' || s.extension from asset_checks c join assets s on s.sha256 = c.sha256
                where c.app_id = a.id and c.field = 'logoUrl' and c.url = a.logo_url limit 1) as logo,
               ${QUEUE_FLAGS.map((flag) => `${FLAG_SQL[flag]} as flag_${flag}`).join(',\n')}`,
      from: QUEUE_FROM,
      where: queueWhere(filter),
      orderBy: 'q.position',
    },
    filter,
    (row: QueueListingRow) => ({
      ...toEntry(row),
      name: row.name,
      slug: row.slug,
      developer: { id: row.developer_id, name: row.developer_name },
      flags: QUEUE_FLAGS.filter((flag) => row[`flag_${flag}`]),
      logoUrl: row.logo ? consoleMirrorPath(...(row.logo.split('.') as [string, string])) : null,
    }),
  );
}

/**
 * The oldest entry of the filtered queue that nobody has claimed (or whose claim ran out), other
 * than `except`: where "Approve & next" goes. Null when the filter has nothing else waiting.
 */
export async function nextUnclaimed(em: EntityManager, filter: QueueFilter, except: string | null): Promise<QueueEntry | null> {
  const where = queueWhere(filter, [
    [`not exists (select 1 from review_claims c where c.subject = q.kind || ':' || q.id and c.expires_at > now())`],
    ...(except ? [["q.kind || ':' || q.id <> :exceptSubject", { exceptSubject: except }] as const] : []),
  ]);
  const rows = await executeNamed<QueueRow>(em, `select q.* from ${QUEUE_FROM} ${where.clause} order by q.position limit 1`, where.params);
  return rows[0] ? toEntry(rows[0]) : null;
}

/** The entries just before and after `subject` (`kind:id`) in the filtered queue: where j and k go. */
export async function queueNeighbours(
  em: EntityManager,
  filter: QueueFilter,
  subject: string,
): Promise<{ previous: QueueEntry | null; next: QueueEntry | null }> {
  const where = queueWhere(filter);
  // The subject itself may fall outside the filter (opened from elsewhere): then it has no neighbours.
  const rows = await executeNamed<{ previous: QueueRow | null; next: QueueRow | null }>(
    em,
    `select previous, next from (
       select q.kind || ':' || q.id as subject, lag(to_jsonb(q)) over w as previous, lead(to_jsonb(q)) over w as next
       from ${QUEUE_FROM} ${where.clause} window w as (order by q.position)
     ) x where subject = :subject`,
    { ...where.params, subject },
  );
  const row = rows[0];
  return { previous: row?.previous ? toEntry(row.previous) : null, next: row?.next ? toEntry(row.next) : null };
}

/** The queue entries of these apps (their own submission, their pending revision, or both). */
export async function queueEntriesOf(em: EntityManager, appIds: readonly string[]): Promise<QueueEntry[]> {
  if (appIds.length === 0) return [];
  const rows = await executeNamed<QueueRow>(em, `select * from (${QUEUE}) ranked where app_id = any(:appIds::uuid[])`, { appIds });
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
  const [row] = await executeNamed<{ seconds: number | null; decisions: number }>(
    em,
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
    {},
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
