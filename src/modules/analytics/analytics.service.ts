import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { authorizeApp, type Caller } from '../teams/access.ts';
import type { AppStatus } from '../apps/app.entity.ts';
import { ANALYTICS_DAYS, type AppAnalytics } from './analytics.model.ts';

/** Analytics of an app the caller may read analytics of (personal, or by team role); anyone else's is 404. */
export async function getAppAnalytics(em: EntityManager, caller: Caller, appId: string): Promise<AppAnalytics> {
  await authorizeApp(em, caller, appId, 'analytics');
  const [app] = await em.execute<
    { status: AppStatus; featured: boolean; install_count: number; review_count: number; average_rating: string }[]
  >(
    `select a.status, a.featured, coalesce(s.install_count, 0) as install_count, coalesce(s.review_count, 0) as review_count,
            coalesce(s.average_rating, 0) as average_rating
     from apps a left join app_stats s on s.app_id = a.id
     where a.id = ?`,
    [appId],
  );
  if (!app) throw notFound('App');
  const days = await em.execute<{ date: string; count: number }[]>(
    `with days as (
       select (now() at time zone 'utc')::date - n as day from generate_series(?::int - 1, 0, -1) n
     )
     select to_char(days.day, 'YYYY-MM-DD') as date, count(i.id)::int as count
     from days left join installs i on i.app_id = ? and i.counted
       and i.installed_at >= days.day::timestamp at time zone 'utc'
       and i.installed_at < (days.day + 1)::timestamp at time zone 'utc'
     group by days.day order by days.day`,
    [ANALYTICS_DAYS, appId],
  );
  return {
    installCount: app.install_count,
    reviewCount: app.review_count,
    averageRating: Number(app.average_rating),
    status: app.status,
    featured: app.featured,
    installsByDay: days,
  };
}
