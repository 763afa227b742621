import { ApiError, notFound } from '../../http/problem.ts';
import { pageOf, pageWindow, type Page } from '../../http/pagination.ts';
import { executeNamed, namedSql, type SqlTarget } from '../../lib/named-sql.ts';
import type { SqlReader } from '../../lib/sql-reader.ts';
import { CATEGORIES, type Category } from '../apps/app.entity.ts';
import type { PublicAppView } from '../apps/apps.model.ts';
import { COLUMNS, JOINS, OWNER_JOINS, OWNER_SUSPENDED, VISIBLE, toPublicView, toSummary, type PublicAppRow } from './catalogue-rows.ts';
import { countListed, listPage } from './catalogue-list.ts';
import type { CatalogueFilter } from './catalogue-order.ts';
import { searchPage, type IndexedSearch } from './catalogue-search.ts';
import type { LookUpWords } from './search-words.ts';
import type { CatalogueQuery, CategoryCount, FeaturedQuery, PublicAppSummary } from './catalogue.model.ts';
// Raw SQL here is the hot public read (D106): the catalogue, through its SqlReader where replicas serve it.

/**
 * The public catalogue's reads. They take a `SqlReader` (the primary or a replica, never the
 * ORM's connection), read with raw SQL and map rows through `catalogue-rows.ts`. Callers cache
 * what they return (`public-catalogue.ts`); `findPublicAppId` is the exception, used inside the
 * transactions of installs and reviews.
 */

/** A filter's total, which the caller may keep between requests (it changes only with the catalogue). */
export type TotalOf = (filter: CatalogueFilter) => Promise<number>;

export async function listCatalogue(
  reader: SqlReader,
  query: CatalogueQuery,
  totalOf: TotalOf = (filter) => countListed(reader, filter),
  lookUp?: LookUpWords,
  indexed?: IndexedSearch,
): Promise<Page<PublicAppSummary>> {
  const { page, limit, offset } = pageWindow(query);
  const filter: CatalogueFilter = { category: query.category, environment: query.environment, featured: query.featured };
  const search = query.search?.trim();
  if (search) {
    const found = await searchPage(reader, search, filter, query.sort ?? 'relevance', { limit, offset }, lookUp, indexed);
    return pageOf(found.data, page, limit, found.total);
  }
  const sort = !query.sort || query.sort === 'relevance' ? 'installs' : query.sort;
  const [data, total] = await Promise.all([listPage(reader, filter, sort, { limit, offset }), totalOf(filter)]);
  return pageOf(data, page, limit, total);
}

/**
 * A slug that was never public is 404 (its existence is not revealed); a once-approved app
 * that is suspended now, or whose developer is, is 410.
 */
function assertPublic(row: { status: string; first_approved_at: unknown; owner_suspended: boolean } | undefined): void {
  if (!row?.first_approved_at) throw notFound('App');
  if (row.status !== 'APPROVED' || row.owner_suspended) {
    throw new ApiError(410, 'APP_UNAVAILABLE', 'This app is no longer available');
  }
}

export async function getPublicApp(reader: SqlReader, slug: string): Promise<PublicAppView> {
  const rows = await reader.query<PublicAppRow>(namedSql(`select ${COLUMNS.full} from apps a ${JOINS} where a.slug = :slug`, { slug }));
  assertPublic(rows[0]);
  return toPublicView(rows[0]!);
}

/** The id of the public app at `slug`, with the same 404/410 rules as `getPublicApp`. */
export async function findPublicAppId(target: SqlTarget, slug: string): Promise<string> {
  const rows = await executeNamed<{ id: string; status: string; first_approved_at: string | null; owner_suspended: boolean }>(
    target,
    `select a.id, a.status, a.first_approved_at, ${OWNER_SUSPENDED} as owner_suspended
     from apps a ${OWNER_JOINS} where a.slug = :slug`,
    { slug },
  );
  assertPublic(rows[0]);
  return rows[0]!.id;
}

export async function listFeatured(reader: SqlReader, query: FeaturedQuery): Promise<PublicAppSummary[]> {
  const params: Record<string, unknown> = { limit: query.limit ?? 20 };
  let filter = `${VISIBLE} and a.featured`;
  if (query.environment) {
    filter += ' and a.environment = :environment';
    params.environment = query.environment;
  }
  const rows = await reader.query<PublicAppRow>(
    // Ordered as `sort=installs` (D231), along `app_stats_active_idx`: the stats rows keep no index of `install_count`.
    namedSql(`select ${COLUMNS.summary} from apps a ${JOINS} where ${filter} order by s.active_installs desc, a.id desc limit :limit`, params),
  );
  return rows.map(toSummary);
}

/** All ten categories, from the counts the `stats.categories` job keeps. */
export async function listCategoryCounts(reader: SqlReader): Promise<CategoryCount[]> {
  const rows = await reader.query<{ category: Category; app_count: number }>(namedSql('select category, app_count from category_counts', {}));
  const counts = new Map(rows.map((row) => [row.category, row.app_count]));
  return CATEGORIES.map((category) => ({ category, count: counts.get(category) ?? 0 }));
}
