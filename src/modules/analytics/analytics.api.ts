import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { AppAnalytics } from './analytics.model.ts';
import { getAppAnalytics } from './analytics.service.ts';
import { callerOf } from '../teams/access.ts';

export function analyticsApi(ctx: AppContext, auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/dev/apps', tags: ['Analytics'] })
    .use(auth)
    .get('/:id/analytics', ({ principal, params }) => getAppAnalytics(ctx.orm.em.fork(), callerOf(principal), params.id), {
      apiKey: 'ANALYTICS_READ',
      params: IdParams,
      response: { 200: AppAnalytics, ...problems(400, 401, 403, 404) },
      detail: {
        summary: "Your app's analytics",
        description: 'Needs an API key with ANALYTICS_READ. Counters are updated by a background job within seconds of an install or review.',
      },
    });
}
