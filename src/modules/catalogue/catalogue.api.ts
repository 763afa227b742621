import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { PublicRateLimits } from '../../http/rate-limit.ts';
import { DataList, Paginated, problems } from '../../http/schemas.ts';
import { PublicAppView } from '../apps/apps.model.ts';
import { CatalogueQuery, CategoryCount, FeaturedQuery, SlugParams } from './catalogue.model.ts';
import { SEARCH_CANDIDATES, getPublicApp, listCatalogue, listCategoryCounts, listFeatured } from './catalogue.service.ts';

/** The public catalogue: no authentication. The two `/list` routes come before `/:slug`, which would otherwise take them. */
export function catalogueApi(ctx: AppContext, rateLimits: PublicRateLimits) {
  return new Elysia({ prefix: '/api/apps', tags: ['Catalogue'] })
    .use(rateLimits)
    .get('', ({ query }) => listCatalogue(ctx.orm.em.fork(), query), {
      rateLimit: 'read',
      query: CatalogueQuery,
      response: { 200: Paginated(PublicAppView), ...problems(400, 429) },
      detail: {
        summary: 'List and search approved apps',
        description: `Filters combine with AND. \`search\` uses full-text search on the name and description plus trigram similarity on the name (one typo still matches); an exact name match ranks first. A search considers at most ${SEARCH_CANDIDATES.toLocaleString('en')} matching apps (exact names first, then the most installed). \`page × limit\` may not exceed 10,000.`,
      },
    })
    .get('/featured/list', async ({ query }) => ({ data: await listFeatured(ctx.orm.em.fork(), query) }), {
      rateLimit: 'read',
      query: FeaturedQuery,
      response: { 200: DataList(PublicAppView), ...problems(400, 429) },
      detail: { summary: 'Featured apps, most installed first' },
    })
    .get('/categories/list', async () => ({ data: await listCategoryCounts(ctx.orm.em.fork()) }), {
      rateLimit: 'read',
      response: { 200: DataList(CategoryCount), ...problems(429) },
      detail: {
        summary: 'All ten categories with their app counts',
        description: 'Counts APPROVED apps of developers who are not suspended; updated by a background job within seconds of a change.',
      },
    })
    .get('/:slug', ({ params }) => getPublicApp(ctx.orm.em.fork(), params.slug), {
      rateLimit: 'read',
      params: SlugParams,
      response: { 200: PublicAppView, ...problems(404, 410, 429) },
      detail: {
        summary: 'One approved app',
        description: '404 for a slug that was never public; 410 `APP_UNAVAILABLE` for an app that was approved once and is suspended now, or whose developer is.',
      },
    });
}
