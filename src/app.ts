import { Elysia } from 'elysia';
import type { AppContext } from './app-context.ts';
import { createAuth } from './modules/identity/auth.ts';
import { createEarlyAnswers, httpLifecycle } from './http/lifecycle.ts';
import { createPublicRateLimits } from './http/rate-limit.ts';
import { apiDocsApi } from './modules/api-docs/api-docs.api.ts';
import { apiModels } from './modules/api-docs/api-models.ts';
import { healthApi } from './modules/health/health.api.ts';
import { developersApi } from './modules/developers/developers.api.ts';
import { apiKeysApi } from './modules/api-keys/api-keys.api.ts';
import { appsApi } from './modules/apps/apps.api.ts';
import { catalogueApi, catalogueRoutesBeforeElysia } from './modules/catalogue/catalogue.api.ts';
import { createPublicCatalogue } from './modules/catalogue/public-catalogue.ts';
import { installsApi } from './modules/installs/installs.api.ts';
import { reviewsApi } from './modules/reviews/reviews.api.ts';
import { analyticsApi } from './modules/analytics/analytics.api.ts';
import { assetsApi } from './modules/assets/assets.api.ts';
import { webhooksApi } from './modules/webhooks/webhooks.api.ts';
import { reviewRepliesApi } from './modules/reviews/review-replies.api.ts';
import { teamsApi } from './modules/teams/teams.api.ts';
import { adminConsole } from './modules/console/console.ts';
import { metricsApi } from './modules/metrics/metrics.api.ts';
import { trustedPublishingApi } from './modules/trusted-publishing/trusted-publishing.api.ts';
import { publishingApi } from './modules/publishing/publishing.api.ts';
import { queueRegistry } from '../jobs/registry.ts';

/** The whole HTTP surface, built from its dependencies. Tests call `.handle()` on it without listening. */
export function createApp(ctx: AppContext) {
  const auth = createAuth(ctx);
  const rateLimits = createPublicRateLimits(ctx);
  const catalogue = createPublicCatalogue(ctx.catalogueReaders);
  // Cached catalogue reads are answered by the listening server's routes, ahead of Elysia's (D190).
  const routes = catalogueRoutesBeforeElysia(catalogue, rateLimits, createEarlyAnswers(ctx), (request) => app.fetch(request));
  // normalize off: an unknown field is a 400 (a typo must not be silently dropped), and responses are built exactly.
  const app = new Elysia({ normalize: false, serve: { maxRequestBodySize: ctx.config.maxBodyBytes, routes } });
  return (
    app
      .use(httpLifecycle(ctx, () => app.routes, { formPrefixes: ['/admin'] }))
      // The named schemas first, so every route that contains one finds it stamped with its name.
      .use(apiModels)
      .use(apiDocsApi(ctx, () => app))
      .use(healthApi(ctx))
      .use(developersApi(ctx, auth))
      .use(apiKeysApi(ctx, auth))
      .use(appsApi(ctx, auth))
      .use(catalogueApi(catalogue, rateLimits))
      .use(installsApi(ctx, auth, rateLimits))
      .use(reviewsApi(ctx, auth, rateLimits))
      .use(analyticsApi(ctx, auth))
      .use(assetsApi(ctx, auth))
      .use(webhooksApi(ctx, auth))
      .use(reviewRepliesApi(ctx, auth))
      .use(trustedPublishingApi(ctx, auth))
      .use(publishingApi())
      .use(teamsApi(ctx, auth))
      .use(metricsApi(ctx, queueRegistry()))
      .use(adminConsole(ctx, queueRegistry()))
  );
}

export type App = ReturnType<typeof createApp>;
