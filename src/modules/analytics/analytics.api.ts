import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import { IdParams, problems } from '../../http/schemas.ts';
import { AppAnalytics, AppsAnalytics, DailyAnalytics, DailyQuery, DailySeries, MAX_SERIES_DAYS } from './analytics.model.ts';
import { dailyCsv, getAppAnalytics, getDailyAnalytics, getTeamAnalytics } from './analytics.service.ts';

/** `Accept: text/csv` asks for the CSV; anything else (or nothing) gets JSON. */
const wantsCsv = (accept: string | null) => accept !== null && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept);
import { accessProblems, callerOf } from '../teams/access.ts';

export function analyticsApi(ctx: AppContext, auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/dev', tags: ['Analytics'] })
    .model({ AppAnalytics, DailyAnalytics, AppsAnalytics })
    .use(auth)
    .get('/apps/:id/analytics', ({ principal, params }) => getAppAnalytics(ctx.orm.em.fork(), callerOf(principal), params.id), {
      apiKey: 'ANALYTICS_READ',
      params: IdParams,
      response: { 200: 'AppAnalytics', ...problems(...accessProblems('analytics')) },
      detail: {
        summary: "Your app's analytics",
        description:
          'Needs an API key with ANALYTICS_READ. Counters are updated by a background job within seconds of an install, uninstall or review; `ratingDistribution` counts visible reviews.',
      },
    })
    .get(
      '/apps/:id/analytics/daily',
      async ({ principal, params, query, request, set }) => {
        const daily = await getDailyAnalytics(ctx.orm.em.fork(), callerOf(principal), params.id, query);
        if (!wantsCsv(request.headers.get('accept'))) return { data: daily.rows };
        set.headers['content-type'] = 'text/csv; charset=utf-8';
        set.headers['content-disposition'] = `attachment; filename="${daily.slug}-${daily.range.from}-${daily.range.to}.csv"`;
        return dailyCsv(daily.rows);
      },
      {
        apiKey: 'ANALYTICS_READ',
        params: IdParams,
        query: DailyQuery,
        response: {
          200: DailySeries,
          ...problems(...accessProblems('analytics')),
        },
        detail: {
          summary: "Your app's analytics, day by day",
          description:
            `Needs an API key with ANALYTICS_READ. One row per UTC day from \`from\` to \`to\` (default: the last 30 days), at most ${MAX_SERIES_DAYS} days; ` +
            '`from` after `to` or a day that does not exist: 400. `activeInstalls` and `averageRating` are as at the end of each day. ' +
            'With `Accept: text/csv` the same rows as CSV (a header line `date,installs,uninstalls,activeInstalls,reviews,averageRating`), as an attachment.',
        },
      },
    )
    .get('/teams/:id/analytics', ({ principal, params, query }) => getTeamAnalytics(ctx.orm.em.fork(), callerOf(principal), params.id, query), {
      apiKey: 'ANALYTICS_READ',
      params: IdParams,
      query: DailyQuery,
      response: { 200: 'AppsAnalytics', ...problems(...accessProblems('analytics')) },
      detail: {
        summary: "Your team's analytics",
        description:
          "Needs an API key with ANALYTICS_READ and the analyst role or more in the team. Each of the team's apps with its counters and daily series " +
          `(\`from\`/\`to\` as for an app's daily series: default the last 30 days, at most ${MAX_SERIES_DAYS}), and their sums.`,
      },
    });
}
