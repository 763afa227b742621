import { Elysia } from 'elysia';
import { answerFromHook, cacheableResponse, type CacheableBody } from '../../http/cacheable.ts';
import { targetOf } from '../../http/request-target.ts';
import type { PublicRateLimits } from '../../http/rate-limit.ts';
import { DataList, Paginated, problems } from '../../http/schemas.ts';
import { PublicAppView } from '../apps/apps.model.ts';
import { CatalogueQuery, CategoryCount, FeaturedQuery, PublicAppSummary, SlugParams } from './catalogue.model.ts';
import { SEARCH_CANDIDATES } from './catalogue-search.ts';
import type { PublicCatalogue } from './public-catalogue.ts';

const CACHING =
  'Cacheable: `ETag` (send it back in `If-None-Match` for a 304), `Cache-Control: public` with a short `max-age`, `s-maxage` and `stale-while-revalidate`.';

type PeerSource = Parameters<PublicRateLimits['allowCacheableRead']>[1];

/**
 * The catalogue's GET paths as routes of the server itself, which Bun matches before Elysia's: a
 * repeat of a known request target whose answer is current is answered there (`answerEarly`,
 * D190), counted against the same read limit; anything else (a first request, a spent limit)
 * goes on to Elysia (`routed`), where the hook below and the routes answer it as before.
 */
export function catalogueRoutesBeforeElysia(
  catalogue: PublicCatalogue,
  rateLimits: PublicRateLimits,
  answerEarly: (request: Request, target: string, cached: CacheableBody) => Response,
  routed: (request: Request) => Response | Promise<Response>,
) {
  const GET = (request: Request, server: PeerSource) => {
    // Read once: `request.url` builds a new string each time it is read.
    const target = targetOf(request.url);
    const cached = catalogue.cached(target);
    return cached && rateLimits.allowCacheableRead(request, server) ? answerEarly(request, target, cached) : routed(request);
  };
  return Object.fromEntries(CATALOGUE_GET_PATHS.map((path) => [`${PREFIX}${path}`, { GET }]));
}

const PREFIX = '/api/apps';
/** Every GET route below (Bun's router, like Elysia's, prefers the static `/list` paths to `/:slug`). */
const CATALOGUE_GET_PATHS = ['', '/featured/list', '/categories/list', '/:slug'];

/** The public catalogue: no authentication. The two `/list` routes come before `/:slug`, which would otherwise take them. */
export function catalogueApi(catalogue: PublicCatalogue, rateLimits: PublicRateLimits) {
  return (
    new Elysia({ prefix: PREFIX, tags: ['Catalogue'] })
      .use(rateLimits)
      // The same early answer for a request that reaches Elysia without the server's routes (`app.handle`):
      // a request target answered before (so already validated) whose answer is still current is
      // answered here, before routing, validation and guards.
      .onRequest(({ request, server, set }) => {
        if (request.method !== 'GET') return;
        const cached = catalogue.cached(targetOf(request.url));
        if (cached && rateLimits.allowCacheableRead(request, server)) return answerFromHook(request, set, cached);
      })
      .get('', async ({ query, request }) => cacheableResponse(request, await catalogue.list(targetOf(request.url), query)), {
        rateLimit: 'cacheable',
        query: CatalogueQuery,
        response: { 200: Paginated(PublicAppSummary, 'A page of approved apps') },
        detail: {
          summary: 'List and search approved apps',
          description: `Summaries (the app without \`longDescription\`, \`longDescriptionHtml\` and \`screenshots\`: \`GET /api/apps/{slug}\` has them). Filters combine with AND. \`search\` uses full-text search on the name and description, each word corrected to the catalogue's words one typo away (one typo still matches); an exact name match ranks first. A search considers at most ${SEARCH_CANDIDATES.toLocaleString('en')} matching apps (exact names first, then the most installed). \`page × limit\` may not exceed 10,000. ${CACHING}`,
        },
      })
      .get('/featured/list', async ({ query, request }) => cacheableResponse(request, await catalogue.featured(targetOf(request.url), query)), {
        rateLimit: 'cacheable',
        query: FeaturedQuery,
        response: { 200: DataList(PublicAppSummary, 'The featured apps') },
        detail: { summary: 'Featured apps, most active installs first (as `sort=installs`)', description: `Summaries, as in the list. ${CACHING}` },
      })
      .get('/categories/list', async ({ request }) => cacheableResponse(request, await catalogue.categories(targetOf(request.url))), {
        rateLimit: 'cacheable',
        response: { 200: DataList(CategoryCount, 'Every category with its count of public apps') },
        detail: {
          summary: 'All ten categories with their app counts',
          description: `Counts APPROVED apps of developers who are not suspended; updated by a background job within seconds of a change. ${CACHING}`,
        },
      })
      .get('/:slug', async ({ params, request }) => cacheableResponse(request, await catalogue.app(targetOf(request.url), params.slug)), {
        rateLimit: 'cacheable',
        params: SlugParams,
        response: { 200: PublicAppView, ...problems('NOT_FOUND', 'APP_UNAVAILABLE') },
        detail: {
          summary: 'One approved app',
          description: `404 for a slug that was never public; 410 \`APP_UNAVAILABLE\` for an app that was approved once and is suspended now, or whose developer is. ${CACHING}`,
        },
      })
  );
}
