import { raw, sql, type EntityManager } from '@mikro-orm/postgresql';
import { rawKey } from '../../lib/raw-keys.ts';
import { containsPattern, listPageOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { REVIEW_TARGET_HOURS } from '../notifications/notifications.service.ts';
import { consoleMirrorPath } from '../assets/asset-files.ts';
import { App } from '../apps/app.entity.ts';
import { AppRevision } from '../apps/app-revision.entity.ts';
import { AppTransition } from '../apps/app-transition.entity.ts';
import { AssetCheck } from '../assets/asset-check.entity.ts';
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

/** The queue, ranked, as a sub-query: `kind`, `id`, `app_id`, `waiting_since` and `position`. */
function rankedQueue(em: EntityManager) {
  const apps = em
    .createQueryBuilder(App, 'pa')
    .select([raw(`'app' as kind`), 'pa.id', raw('pa.id as app_id'), raw('pa.submitted_at as waiting_since')])
    .where({ status: 'PENDING' });
  const revisions = em
    .createQueryBuilder(AppRevision, 'pr')
    .select([raw(`'revision'`), 'pr.id', 'pr.appId', 'pr.createdAt'])
    .where({ status: 'PENDING' });
  return em.createQueryBuilder(apps.unionAll(revisions), 'u').select(['u.*', raw('row_number() over (order by u.waiting_since, u.id) as position')]);
}

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

/**
 * Each flag as a condition on a queue entry `q` of app `a` (computed per row of a page: the queue is short).
 * Fragments inside the QueryBuilder's queries (D106): correlated tests on `q` and `a`, among them a trigram
 * match and a JSON set difference that no filter object states.
 */
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
  logo_url: string | null;
  developer_id: string;
  developer_name: string;
  flag_images: boolean;
  flag_lookalike: boolean;
  flag_permissions: boolean;
  flag_resubmitted: boolean;
}

export interface QueueFilter extends ListQuery {
  kind: 'app' | 'revision' | null;
  flag: QueueFlag | null;
}

/** The entries `q` of the queue the filter keeps, each with its app `a` and the app's developer `d`. */
function filteredQueue(em: EntityManager, filter: QueueFilter) {
  const qb = em
    .createQueryBuilder(App, 'a')
    .join(rankedQueue(em), 'q', { 'q.app_id': sql.ref('a.id') })
    .join('a.developer', 'd');
  if (filter.kind) qb.andWhere(raw('q.kind = ?', [filter.kind]));
  if (filter.flag) qb.andWhere(raw(FLAG_SQL[filter.flag]));
  const pattern = filter.q && containsPattern(filter.q);
  if (pattern) {
    qb.andWhere({
      $or: [{ name: { $ilike: pattern } }, { slug: { $ilike: pattern } }, { 'd.name': { $ilike: pattern } }, { 'd.email': { $ilike: pattern } }],
    });
  }
  return qb;
}

const byPosition = { [rawKey('q.position')]: 'asc' } as const;

/** A page of the queue as reviewers list it, oldest first; search and the filters keep each entry's place. */
export async function reviewQueuePage(em: EntityManager, filter: QueueFilter): Promise<ListPage<QueueListing>> {
  const [rows, counted] = await Promise.all([
    filteredQueue(em, filter)
      .select([
        'q.*',
        'a.name',
        'a.slug',
        raw('a.logo_url as logo_url'),
        raw('d.id as developer_id'),
        raw('d.name as developer_name'),
        ...QUEUE_FLAGS.map((flag) => raw(`${FLAG_SQL[flag]} as flag_${flag}`)),
      ])
      .orderBy(byPosition)
      .limit(filter.limit, filter.offset)
      .execute<QueueListingRow[]>('all', false),
    filteredQueue(em, filter).select(raw('count(*)::int as total')).execute<{ total: number }>('get', false),
  ]);
  // The stored copies of the listed logos (a logo without one is not shown).
  const logos =
    rows.length === 0
      ? []
      : await em.find(
          AssetCheck,
          { appId: { $in: rows.map((row) => row.app_id) }, field: 'logoUrl', copy: { $ne: null } },
          { populate: ['copy'], disableIdentityMap: true },
        );
  const logoOf = (row: QueueListingRow) => logos.find((check) => check.appId === row.app_id && check.url === row.logo_url)?.copy;
  const data = rows.map((row) => {
    const logo = logoOf(row);
    return {
      ...toEntry(row),
      name: row.name,
      slug: row.slug,
      developer: { id: row.developer_id, name: row.developer_name },
      flags: QUEUE_FLAGS.filter((flag) => row[`flag_${flag}`]),
      logoUrl: logo ? consoleMirrorPath(logo.sha256, logo.extension) : null,
    };
  });
  return listPageOf(data, counted.total, filter);
}

/**
 * The oldest entry of the filtered queue that nobody has claimed (or whose claim ran out), other
 * than `except`: where "Approve & next" goes. Null when the filter has nothing else waiting.
 */
export async function nextUnclaimed(em: EntityManager, filter: QueueFilter, except: string | null): Promise<QueueEntry | null> {
  // Claims are the claims' own SQL (`review-claims.ts`): a live one keeps its entry from being offered.
  const qb = filteredQueue(em, filter)
    .select('q.*')
    .andWhere(raw(`not exists (select 1 from review_claims c where c.subject = q.kind || ':' || q.id and c.expires_at > now())`));
  if (except) qb.andWhere(raw(`q.kind || ':' || q.id <> ?`, [except]));
  const row = await qb.orderBy(byPosition).limit(1).execute<QueueRow | undefined>('get', false);
  return row ? toEntry(row) : null;
}

/** The entries just before and after `subject` (`kind:id`) in the filtered queue: where j and k go. */
export async function queueNeighbours(
  em: EntityManager,
  filter: QueueFilter,
  subject: string,
): Promise<{ previous: QueueEntry | null; next: QueueEntry | null }> {
  const around = filteredQueue(em, filter).select([
    raw(`q.kind || ':' || q.id as subject`),
    raw('lag(to_jsonb(q)) over (order by q.position) as previous'),
    raw('lead(to_jsonb(q)) over (order by q.position) as next'),
  ]);
  // The subject itself may fall outside the filter (opened from elsewhere): then it has no neighbours.
  // (`App` only types the builder: the rows come from `around`.)
  const row = await em
    .createQueryBuilder(App)
    .from(around, 'x')
    .select([raw('x.previous'), raw('x.next')])
    .where(raw('x.subject = ?', [subject]))
    .execute<{ previous: QueueRow | null; next: QueueRow | null } | undefined>('get', false);
  return { previous: row?.previous ? toEntry(row.previous) : null, next: row?.next ? toEntry(row.next) : null };
}

/** The queue entries of these apps (their own submission, their pending revision, or both). */
export async function queueEntriesOf(em: EntityManager, appIds: readonly string[]): Promise<QueueEntry[]> {
  if (appIds.length === 0) return [];
  const rows = await em
    .createQueryBuilder(rankedQueue(em), 'q')
    .select('q.*')
    .where({ [rawKey('q.app_id')]: { $in: appIds } })
    .execute<QueueRow[]>('all', false);
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
  const since = raw(`now() - interval '30 days'`);
  // Each decision on an app took from the submission before it (the latest) to the decision.
  const submitted = em
    .createQueryBuilder(AppTransition, 's')
    .select(raw('max(s.created_at) as submitted_at'))
    .where({ appId: sql.ref('d.app_id'), action: 'submit', createdAt: { $lte: sql.ref('d.created_at') } });
  const decisions = em
    .createQueryBuilder(AppTransition, 'd')
    .select(raw('extract(epoch from d.created_at - s.submitted_at) as seconds'))
    .innerJoinLateral(submitted, 's', { 's.submitted_at': { $ne: null } })
    .where({ action: { $in: ['approve', 'reject'] }, createdAt: { $gt: since } });
  const revisions = em
    .createQueryBuilder(AppRevision, 'r')
    .select(raw('extract(epoch from r.decided_at - r.created_at)'))
    .where({ status: { $ne: 'PENDING' }, decidedAt: { $gt: since } });
  const row = await em
    .createQueryBuilder(decisions.unionAll(revisions), 'took')
    .select([raw('percentile_cont(0.5) within group (order by took.seconds) as seconds'), raw('count(*)::int as decisions')])
    .execute<{ seconds: number | null; decisions: number } | undefined>('get', false);
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
