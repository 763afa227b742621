import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../../http/problem.ts';
import { CATEGORIES, type AppStatus, type Category, type Environment, type Screenshot } from '../apps/app.entity.ts';
import { toPublicAppView } from '../apps/app-view.ts';
import { PUBLISHED_ASSETS_COLUMN, withPublishedAssets, type PublishedAssets } from '../apps/asset-publication.ts';
import type { PublicAppView } from '../apps/apps.model.ts';
import { pageOf, pageWindow, type Page } from '../../http/pagination.ts';
import type { CatalogueQuery, CatalogueSort, CategoryCount, FeaturedQuery } from './catalogue.model.ts';

/**
 * The public catalogue. Hot paths, so everything here reads with raw SQL (no entity hydration)
 * and maps rows through the shared `toPublicAppView`. An app is public when it is APPROVED and
 * its developer is not SUSPENDED; counters come from the narrow `app_stats` rows.
 */

/** Searches rank at most this many matching apps (exact names first, then the most installed). */
export const SEARCH_CANDIDATES = 1_000;

/** Bayesian prior for `sort=rating`: every app starts with this many reviews of this rating. */
const RATING_PRIOR_WEIGHT = 5;
const RATING_PRIOR_MEAN = 3;

const VISIBLE = `a.status = 'APPROVED' and d.status <> 'SUSPENDED'`;

// Every app has a stats row (created with it by a trigger), so the join is inner and the list
// can walk the stats indexes in display order.
const FROM = `from apps a join developers d on d.id = a.developer_id join app_stats s on s.app_id = a.id`;

const COLUMNS = `a.id, a.slug, a.name, a.description, a.long_description, a.long_description_html, a.category,
  a.environment, a.logo_url, a.banner_url, a.website_url, a.support_url, a.privacy_policy_url, a.terms_of_service_url,
  a.oauth_client_id, a.screenshots, a.status, a.featured, a.version, a.created_at, a.updated_at, a.first_approved_at,
  s.install_count, s.review_count, s.average_rating,
  d.name as developer_name, d.company_name as developer_company_name, d.website_url as developer_website_url,
  d.status as developer_status, ${PUBLISHED_ASSETS_COLUMN}`;

interface PublicAppRow {
  id: string;
  slug: string;
  name: string;
  description: string;
  long_description: string | null;
  long_description_html: string | null;
  category: Category;
  environment: Environment;
  logo_url: string | null;
  banner_url: string | null;
  website_url: string | null;
  support_url: string | null;
  privacy_policy_url: string | null;
  terms_of_service_url: string | null;
  oauth_client_id: string | null;
  screenshots: Screenshot[];
  status: AppStatus;
  featured: boolean;
  version: number;
  /** Timestamps arrive as PostgreSQL text from raw queries. */
  created_at: string;
  updated_at: string;
  first_approved_at: string | null;
  install_count: number;
  review_count: number;
  average_rating: string | number;
  developer_name: string;
  developer_company_name: string | null;
  developer_website_url: string | null;
  developer_status: string;
  published_assets: PublishedAssets | null;
}

function toView(row: PublicAppRow): PublicAppView {
  return toPublicAppView(
    withPublishedAssets({
      id: row.id,
      slug: row.slug,
      name: row.name,
      description: row.description,
      longDescription: row.long_description,
      longDescriptionHtml: row.long_description_html,
      category: row.category,
      environment: row.environment,
      logoUrl: row.logo_url,
      bannerUrl: row.banner_url,
      websiteUrl: row.website_url,
      supportUrl: row.support_url,
      privacyPolicyUrl: row.privacy_policy_url,
      termsOfServiceUrl: row.terms_of_service_url,
      oauthClientId: row.oauth_client_id,
      screenshots: row.screenshots,
      status: row.status,
      featured: row.featured,
      version: row.version,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    }, row.published_assets),
    { installCount: row.install_count, reviewCount: row.review_count, averageRating: Number(row.average_rating) },
    { name: row.developer_name, companyName: row.developer_company_name, websiteUrl: row.developer_website_url },
  );
}

/** Must stay the expression of the `app_stats_rating_idx` index (migration 20261126000005). */
const BAYESIAN_RATING = `((${RATING_PRIOR_WEIGHT * RATING_PRIOR_MEAN} + s.rating_sum)::numeric / (${RATING_PRIOR_WEIGHT} + s.review_count))`;

/** The narrow columns a page is chosen by (read from the covering index and `app_stats`, not the wide rows). */
const SORT_KEYS = `s.app_id as id, s.install_count, ${BAYESIAN_RATING} as bayesian_rating,
  coalesce(a.first_approved_at, a.created_at) as approved_at`;

const ORDER: Record<CatalogueSort, [column: string, direction: 'asc' | 'desc'][]> = {
  installs: [['install_count', 'desc'], ['id', 'desc']],
  rating: [['bayesian_rating', 'desc'], ['install_count', 'desc'], ['id', 'desc']],
  newest: [['approved_at', 'desc'], ['id', 'desc']],
  relevance: [['exact_name', 'desc'], ['text_rank', 'desc'], ['name_similarity', 'desc'], ['install_count', 'desc'], ['id', 'desc']],
};
const orderBy = (sort: CatalogueSort, qualifier = '') => ORDER[sort].map(([column, direction]) => `${qualifier}${column} ${direction}`).join(', ');

/**
 * Two steps in one statement: the page's ids are chosen from narrow rows (`ranked`: an `id`
 * plus the sort keys), and only those ids are joined to the wide rows for the response.
 */
const pageQuery = (ranked: string, sort: CatalogueSort, extraColumns = '') => `
  select ${COLUMNS}${extraColumns}
  from (select * from (${ranked}) ranked order by ${orderBy(sort)} limit ? offset ?) p
  join apps a on a.id = p.id join developers d on d.id = a.developer_id join app_stats s on s.app_id = a.id
  order by ${orderBy(sort, 'p.')}`;

/**
 * How close a search word must be to part of a name (pg_trgm's `<%`, default 0.6). At 0.45 one
 * dropped or swapped letter in a five-letter word still matches ("Recpe" → "Recipe": 0.5).
 */
const WORD_SIMILARITY_THRESHOLD = 0.45;

export async function listCatalogue(em: EntityManager, query: CatalogueQuery): Promise<Page<PublicAppView>> {
  const { page, limit, offset } = pageWindow(query);
  const where = [VISIBLE];
  const params: unknown[] = [];
  if (query.category) {
    where.push('a.category = ?');
    params.push(query.category);
  }
  if (query.environment) {
    where.push('a.environment = ?');
    params.push(query.environment);
  }
  if (query.featured !== undefined) {
    where.push('a.featured = ?');
    params.push(query.featured);
  }

  const search = query.search?.trim();
  if (!search) {
    const sort = !query.sort || query.sort === 'relevance' ? 'installs' : query.sort;
    const filter = where.join(' and ');
    const [rows, counted] = await Promise.all([
      em.execute<PublicAppRow[]>(pageQuery(`select ${SORT_KEYS} ${FROM} where ${filter}`, sort), [...params, limit, offset]),
      em.execute<{ total: number }[]>(`select count(*)::int as total from apps a join developers d on d.id = a.developer_id where ${filter}`, params),
    ]);
    return pageOf(rows.map(toView), page, limit, counted[0]?.total ?? 0);
  }

  // Search text is words, never query syntax: plainto_tsquery reads operators ('-', '|', '!', quotes)
  // as the punctuation they are, so no input can negate, nest or overflow the query.
  // Full text ('english' stems, 'simple' keeps words as typed) or trigram closeness of the name:
  // `%` compares whole names, `<%` the term with the closest part of a name, so one typo still
  // finds the app. The GIN indexes serve all four conditions.
  const matches = `(a.search_vector @@ plainto_tsquery('english', ?) or a.search_vector @@ plainto_tsquery('simple', ?)
    or lower(a.name) % lower(?) or lower(?) <% lower(a.name))`;
  const matchParams = [search, search, search, search];
  const filter = `${where.join(' and ')} and ${matches}`;
  // The candidates: exact names first, then the most installed, at most SEARCH_CANDIDATES of them.
  const candidates = `select a.id ${FROM} where ${filter}
    order by lower(a.name) = lower(?) desc, s.install_count desc, a.id desc limit ${SEARCH_CANDIDATES}`;
  const ranked = `select ${SORT_KEYS}, lower(a.name) = lower(?) as exact_name,
      ts_rank(a.search_vector, plainto_tsquery('english', ?) || plainto_tsquery('simple', ?)) as text_rank,
      greatest(similarity(lower(a.name), lower(?)), word_similarity(lower(?), lower(a.name))) as name_similarity
    from candidates k join apps a on a.id = k.id join app_stats s on s.app_id = a.id`;
  const sort = query.sort ?? 'relevance';
  // Matching is the expensive part (trigram rechecks), so it runs once: the candidates are
  // materialised and both the page and the total are taken from them.
  const statement = `with candidates as materialized (${candidates})
    ${pageQuery(ranked, sort, ', (select count(*)::int from candidates) as total')}`;
  // The threshold is a setting, so it is set for this transaction only.
  return em.transactional(async (tx) => {
    await tx.execute(`select set_config('pg_trgm.word_similarity_threshold', ?, true)`, [String(WORD_SIMILARITY_THRESHOLD)]);
    const rows = await tx.execute<(PublicAppRow & { total: number })[]>(statement, [
      ...params,
      ...matchParams,
      search,
      ...[search, search, search, search, search],
      limit,
      offset,
    ]);
    // A page past the last match has no row to carry the total: count the candidates alone.
    const total =
      rows[0]?.total ??
      (offset === 0
        ? 0
        : ((await tx.execute<{ total: number }[]>(`select count(*)::int as total from (${candidates}) c`, [...params, ...matchParams, search]))[0]
            ?.total ?? 0));
    return pageOf(rows.map(toView), page, limit, total);
  });
}

/**
 * A slug that was never public is 404 (its existence is not revealed); a once-approved app
 * that is suspended now, or whose developer is, is 410.
 */
function assertPublic(row: { status: string; first_approved_at: string | null; developer_status: string } | undefined): void {
  if (!row || !row.first_approved_at) throw notFound('App');
  if (row.status !== 'APPROVED' || row.developer_status === 'SUSPENDED') {
    throw new ApiError(410, 'APP_UNAVAILABLE', 'This app is no longer available');
  }
}

export async function getPublicApp(em: EntityManager, slug: string): Promise<PublicAppView> {
  const rows = await em.execute<PublicAppRow[]>(`select ${COLUMNS} ${FROM} where a.slug = ?`, [slug]);
  assertPublic(rows[0]);
  return toView(rows[0]!);
}

/** The id of the public app at `slug`, with the same 404/410 rules as `getPublicApp`. */
export async function findPublicAppId(em: EntityManager, slug: string): Promise<string> {
  const rows = await em.execute<{ id: string; status: string; first_approved_at: string | null; developer_status: string }[]>(
    `select a.id, a.status, a.first_approved_at, d.status as developer_status
     from apps a join developers d on d.id = a.developer_id where a.slug = ?`,
    [slug],
  );
  assertPublic(rows[0]);
  return rows[0]!.id;
}

export async function listFeatured(em: EntityManager, query: FeaturedQuery): Promise<PublicAppView[]> {
  const params: unknown[] = [];
  let filter = `${VISIBLE} and a.featured`;
  if (query.environment) {
    filter += ' and a.environment = ?';
    params.push(query.environment);
  }
  const rows = await em.execute<PublicAppRow[]>(
    `select ${COLUMNS} ${FROM} where ${filter} order by install_count desc, a.id desc limit ?`,
    [...params, query.limit ?? 20],
  );
  return rows.map(toView);
}

/** All ten categories, from the counts the `stats.categories` job keeps. */
export async function listCategoryCounts(em: EntityManager): Promise<CategoryCount[]> {
  const rows = await em.execute<{ category: Category; app_count: number }[]>('select category, app_count from category_counts');
  const counts = new Map(rows.map((row) => [row.category, row.app_count]));
  return CATEGORIES.map((category) => ({ category, count: counts.get(category) ?? 0 }));
}
