import { namedSql } from '../../lib/named-sql.ts';
import type { SqlReader } from '../../lib/sql-reader.ts';
import { COLUMNS, JOINS, toSummary, type PublicAppRow } from './catalogue-rows.ts';
import { filterCondition, orderBy, SORT_KEYS, type CatalogueFilter } from './catalogue-order.ts';
import type { CatalogueSort, PublicAppSummary } from './catalogue.model.ts';
import type { IndexedCandidates, IndexedQuery } from './search-index.ts';
import { correctWords, lookUpWords, searchWords, type LookUpWords } from './search-words.ts';
// Raw SQL here is the hot public read (D106): catalogue search on the narrow table (D104).

/** The in-process search index as of the answer's version (`search-index.ts`); undefined when it cannot answer. */
export type IndexedSearch = (query: IndexedQuery) => Promise<IndexedCandidates | undefined>;

/** Searches rank at most this many matching apps (exact names first, then the most installed). */
export const SEARCH_CANDIDATES = 1_000;

/** Above this expected share of matching apps, candidates are found by walking the most installed apps. */
const WALK_SHARE = 0.05;
/** The most apps a walk visits: beyond it the share was misjudged, and the bound is not reached. */
const MAX_WALK = 30_000;

/**
 * Sorts whose keys the candidates carry (from the narrow table): only the page's apps are read from
 * the wide rows. `installs` ranks by `active_installs`, read from the stats rows like the other sorts.
 */
const RANKED_FROM_CANDIDATES: CatalogueSort[] = ['relevance'];
const RANKED_FROM_WIDE_ROWS = `
  select ${SORT_KEYS}, k.exact_name, k.text_rank
  from candidates k join apps a on a.id = k.id join app_stats s on s.app_id = a.id`;

/** A search row with its app's active installs, which the roll-ups keep in the stats row only (D217). */
const COUNTED_SEARCH_ROWS = 'app_search a join app_stats st on st.app_id = a.app_id';

/** A rare query's matches, from the GIN index, the most installed kept. */
const indexedMatches = (condition: string) => `
  select a.app_id as id, false as exact_name, st.active_installs as install_count, ts_rank(a.search_vector, q.query) as text_rank
  from q, ${COUNTED_SEARCH_ROWS}
  where a.visible${condition} and a.search_vector @@ q.query and a.lower_name <> :exact
  order by st.active_installs desc, a.app_id desc
  limit ${SEARCH_CANDIDATES}`;

/**
 * A common query's matches, walking the stats' active-installs index from the most installed app
 * and stopping at the bound: about `SEARCH_CANDIDATES / share` entries, instead of every one of
 * tens of thousands of matches. The walk's own limit keeps PostgreSQL on the index.
 */
function walkedMatches(condition: string, share: number, params: Record<string, unknown>): string {
  params.walk = Math.min(MAX_WALK, Math.ceil((SEARCH_CANDIDATES / share) * 2));
  return `
  select w.id, false as exact_name, w.install_count, ts_rank(w.search_vector, q.query) as text_rank
  from q, (select a.app_id as id, st.active_installs as install_count, a.search_vector, a.lower_name from ${COUNTED_SEARCH_ROWS}
           where a.visible${condition} order by st.active_installs desc, st.app_id desc limit :walk) w
  where w.search_vector @@ q.query and w.lower_name <> :exact
  limit ${SEARCH_CANDIDATES}`;
}

/**
 * A page of the index's candidates: in their order for relevance (only the page's rows are read),
 * else ordered by the sort's keys in the wide rows, as the SQL search orders its candidates.
 */
async function candidatesPage(
  reader: SqlReader,
  candidates: IndexedCandidates,
  sort: CatalogueSort,
  window: { limit: number; offset: number },
): Promise<{ data: PublicAppSummary[]; total: number }> {
  const { total } = candidates;
  if (RANKED_FROM_CANDIDATES.includes(sort)) {
    const page = candidates.ids.slice(window.offset, window.offset + window.limit);
    if (page.length === 0) return { data: [], total };
    const rows = await reader.query<PublicAppRow>(
      namedSql(`select ${COLUMNS.summary} from apps a ${JOINS} where a.id = any(:ids::uuid[])`, { ids: page }),
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return { data: page.flatMap((id) => (byId.has(id) ? [toSummary(byId.get(id)!)] : [])), total };
  }
  if (total === 0) return { data: [], total };
  const rows = await reader.query<PublicAppRow>(
    namedSql(
      `with candidates as (select k.id, k.exact_name from unnest(:ids::uuid[], :exact::boolean[]) as k(id, exact_name)),
       ranked as (select ${SORT_KEYS}, k.exact_name from candidates k join apps a on a.id = k.id join app_stats s on s.app_id = a.id),
       page as (select * from ranked order by ${orderBy(sort)} limit :limit offset :offset)
       select ${COLUMNS.summary} from page p join apps a on a.id = p.id ${JOINS}
       order by ${orderBy(sort, 'p.')}`,
      { ids: candidates.ids, exact: candidates.ids.map((_, i) => i < candidates.exactNames), limit: window.limit, offset: window.offset },
    ),
  );
  return { data: rows.map(toSummary), total };
}

/**
 * Full-text search on the corrected words: every word must match (as typed or as one of its
 * corrections; stemmed, or as typed in the name), the name weighing more than the description
 * (weights A and B of `search_vector`), and an exact name match first. Candidates come from the
 * narrow `app_search` table (visible apps only, through partial indexes): exact names, then the
 * most installed matches, at most `SEARCH_CANDIDATES`. For a rare query its few matches come from
 * the GIN index; for a common one (its words' shares from ANALYZE's statistics) the install-count
 * index is walked until the bound is reached; only the bounded candidates touch the wide rows.
 * The in-process index (`indexed`), when given and able, finds and ranks the same candidates
 * without PostgreSQL (D199); this SQL answers the rest.
 */
export async function searchPage(
  reader: SqlReader,
  search: string,
  filter: CatalogueFilter,
  sort: CatalogueSort,
  window: { limit: number; offset: number },
  lookUp: LookUpWords = (words) => lookUpWords(reader, words),
  indexed?: IndexedSearch,
): Promise<{ data: PublicAppSummary[]; total: number }> {
  const { groups, share, lexemeGroups } = await correctWords(searchWords(search), lookUp);
  const exact = search.trim().toLowerCase();
  if (indexed && lexemeGroups) {
    const candidates = await indexed({
      groups: lexemeGroups,
      exact,
      filter,
      candidates: SEARCH_CANDIDATES,
      ranked: RANKED_FROM_CANDIDATES.includes(sort),
      upTo: window.offset + window.limit,
    });
    if (candidates) return candidatesPage(reader, candidates, sort, window);
  }
  // Words are letters and digits only, so they can be handed to to_tsquery as they are.
  const params: Record<string, unknown> = { exact, limit: window.limit, offset: window.offset };
  const parts = groups.map((alternatives, i) => {
    params[`words${i}`] = alternatives.join(' | ');
    return `(to_tsquery('simple', :words${i}) || to_tsquery('english', :words${i}))`;
  });
  const query = parts.length > 0 ? parts.join(' && ') : `''::tsquery`;
  const condition = filterCondition(filter);
  const rows = await reader.query<PublicAppRow & { total: number }>(
    namedSql(
      `with q as (select ${query} as query),
       exact as (
         select a.app_id as id, true as exact_name, st.active_installs as install_count, ts_rank(a.search_vector, q.query) as text_rank
         from q, ${COUNTED_SEARCH_ROWS}
         where a.visible${condition.sql} and a.lower_name = :exact
         limit ${SEARCH_CANDIDATES}),
       matched as (${share >= WALK_SHARE ? walkedMatches(condition.sql, share, params) : indexedMatches(condition.sql)}),
       candidates as materialized (
         select * from (select * from exact union all select * from matched) c
         order by exact_name desc, install_count desc, id desc
         limit ${SEARCH_CANDIDATES}),
       ranked as (${RANKED_FROM_CANDIDATES.includes(sort) ? 'select * from candidates' : RANKED_FROM_WIDE_ROWS}),
       page as (select * from ranked order by ${orderBy(sort)} limit :limit offset :offset)
       select t.total, ${COLUMNS.summary}
       from (select count(*)::int as total from candidates) t
       left join (page p join apps a on a.id = p.id ${JOINS}) on true
       order by ${orderBy(sort, 'p.')}`,
      { ...condition.params, ...params },
    ),
  );
  // A page past the last match is one row of the total alone.
  return { data: rows.filter((row) => row.id !== null).map(toSummary), total: rows[0]?.total ?? 0 };
}
