import { t, type Static } from 'elysia';
import { Integer, PageQuery } from '../../http/schemas.ts';
import { CategorySchema, EnvironmentSchema, PublicAppView } from '../apps/apps.model.ts';

export const CATALOGUE_SORTS = ['relevance', 'installs', 'rating', 'newest'] as const;
export type CatalogueSort = (typeof CATALOGUE_SORTS)[number];

// At least one visible character, and no control characters (as everywhere).
const SearchTerm = t.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[^\\u0000-\\u001F\\u007F]*[^\\s\\u0000-\\u001F\\u007F][^\\u0000-\\u001F\\u007F]*$',
  description: 'Words of the name or description; one typo in a name still matches',
});

export const CatalogueQuery = t.Object({
  category: t.Optional(CategorySchema),
  environment: t.Optional(EnvironmentSchema),
  featured: t.Optional(t.Boolean({ description: '`true` for featured apps only, `false` for the others' })),
  search: t.Optional(SearchTerm),
  sort: t.Optional(
    t.UnionEnum(CATALOGUE_SORTS, {
      description:
        '`relevance` (default when searching; without `search` it orders as `installs`), `installs` (default otherwise), `rating` (Bayesian average), `newest` (first approval)',
    }),
  ),
  ...PageQuery,
});
export type CatalogueQuery = Static<typeof CatalogueQuery>;

export const FeaturedQuery = t.Object({
  environment: t.Optional(EnvironmentSchema),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
});
export type FeaturedQuery = Static<typeof FeaturedQuery>;

export const SlugParams = t.Object({ slug: t.String({ description: 'The app slug' }) });

export const CategoryCount = t.Object(
  {
    category: CategorySchema,
    count: Integer({ description: 'APPROVED apps of developers who are not suspended' }),
  },
  { description: 'A category and how many public apps it has' },
);
export type CategoryCount = Static<typeof CategoryCount>;

/** A listing card: the public view without `longDescription`, `longDescriptionHtml` and `screenshots` (GET /api/apps/:slug has them). */
export const PublicAppSummary = t.Omit(PublicAppView, ['longDescription', 'longDescriptionHtml', 'screenshots'], {
  description: 'An approved app as a listing card shows it (`GET /api/apps/{slug}` has the rest)',
});
export type PublicAppSummary = Static<typeof PublicAppSummary>;
