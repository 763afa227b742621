import type { CatalogueQuery, CatalogueSort } from './catalogue.model.ts';

/**
 * How the public list filters and orders, as SQL fragments with named parameters. A page's ids
 * are chosen from narrow rows (the sort keys, walked along their indexes) and only those ids are
 * joined to the wide rows.
 */

/** Bayesian prior for `sort=rating`: every app starts with this many reviews of this rating. */
const RATING_PRIOR_WEIGHT = 5;
const RATING_PRIOR_MEAN = 3;

/** Must stay the expression of the `app_stats_rating_idx` index (migration 20261126000005). */
const BAYESIAN_RATING = `((${RATING_PRIOR_WEIGHT * RATING_PRIOR_MEAN} + s.rating_sum)::numeric / (${RATING_PRIOR_WEIGHT} + s.review_count))`;

/** The narrow columns a page is chosen by. */
export const SORT_KEYS = `s.app_id as id, s.install_count, s.active_installs, ${BAYESIAN_RATING} as bayesian_rating,
  coalesce(a.first_approved_at, a.created_at) as approved_at`;

const ORDER: Record<CatalogueSort, [column: string, direction: 'asc' | 'desc'][]> = {
  installs: [
    ['active_installs', 'desc'],
    ['id', 'desc'],
  ],
  rating: [
    ['bayesian_rating', 'desc'],
    ['install_count', 'desc'],
    ['id', 'desc'],
  ],
  newest: [
    ['approved_at', 'desc'],
    ['id', 'desc'],
  ],
  relevance: [
    ['exact_name', 'desc'],
    ['text_rank', 'desc'],
    ['install_count', 'desc'],
    ['id', 'desc'],
  ],
};

export const orderBy = (sort: CatalogueSort, qualifier = '') =>
  ORDER[sort].map(([column, direction]) => `${qualifier}${column} ${direction}`).join(', ');

export type CatalogueFilter = Pick<CatalogueQuery, 'category' | 'environment' | 'featured'>;

/** The filters as a condition on `a` (apps), with the parameters it names. */
export function filterCondition(filter: CatalogueFilter): { sql: string; params: Record<string, unknown> } {
  const conditions: string[] = [];
  const params: Record<string, unknown> = {};
  if (filter.category) {
    conditions.push('a.category = :category');
    params.category = filter.category;
  }
  if (filter.environment) {
    conditions.push('a.environment = :environment');
    params.environment = filter.environment;
  }
  if (filter.featured !== undefined) {
    conditions.push('a.featured = :featured');
    params.featured = filter.featured;
  }
  return { sql: conditions.map((condition) => ` and ${condition}`).join(''), params };
}

/** One key per distinct filter, for caching what depends on the filter alone (its total). */
export const filterKey = (filter: CatalogueFilter) => `${filter.category ?? ''}|${filter.environment ?? ''}|${filter.featured ?? ''}`;
