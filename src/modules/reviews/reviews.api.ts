import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import type { PublicRateLimits } from '../../http/rate-limit.ts';
import { Paginated, problems } from '../../http/schemas.ts';
import { SlugParams } from '../catalogue/catalogue.model.ts';
import { ListedReview, ReviewBody, ReviewsQuery, ReviewView } from './reviews.model.ts';
import { listReviews, submitReview } from './reviews.service.ts';

export function reviewsApi(ctx: AppContext, auth: AuthPlugin, rateLimits: PublicRateLimits) {
  return new Elysia({ prefix: '/api/apps', tags: ['Reviews'] })
    .use(rateLimits)
    .use(auth)
    .get('/:slug/reviews', ({ params, query }) => listReviews(ctx.orm.em.fork(), params.slug, query), {
      rateLimit: 'read',
      params: SlugParams,
      query: ReviewsQuery,
      response: { 200: Paginated(ListedReview, 'A page of the app’s visible reviews, newest first'), ...problems('NOT_FOUND', 'APP_UNAVAILABLE') },
      detail: {
        summary: "An app's reviews, most recently written first",
        description: "No authentication. Hidden reviews are left out. Each review carries the app developer's `reply` (`null` when there is none).",
      },
    })
    .post(
      '/:slug/reviews',
      async ({ params, body, identity, status }) => {
        const { review, created } = await submitReview(ctx.orm.em.fork(), ctx.jobs, params.slug, identity, body);
        return created ? status(201, review) : status(200, review);
      },
      {
        // The token first: a bad one is 401 without spending the address's write budget.
        platformToken: true,
        rateLimit: 'write',
        params: SlugParams,
        body: ReviewBody,
        response: { 200: ReviewView, 201: ReviewView, ...problems('NOT_FOUND', 'APP_UNAVAILABLE', 'OWN_APP', 'INSTALL_REQUIRED') },
        detail: {
          summary: 'Review an app (or replace your review)',
          description:
            "Takes the platform OAuth token of a user who installed the app with that token (else 403 `INSTALL_REQUIRED`); the app's own developer may not review it (403 `OWN_APP`). One review per user per app: 201 for a new one, 200 when it replaces the earlier one.",
        },
      },
    );
}
