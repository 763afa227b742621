import type { EntityManager } from '@mikro-orm/postgresql';
import { waitingFor } from '../listing-review/review-targets.ts';
import type { Backlog, DashboardFigures } from '../../../views/admin/dashboard.ts';
export type { Backlog, DashboardFigures } from '../../../views/admin/dashboard.ts';

const backlog = (row: { count: number; oldest: string | null } | undefined, kind: 'verification' | 'review'): Backlog => ({
  count: row?.count ?? 0,
  oldest: row?.oldest ? waitingFor(kind, row.oldest) : null,
});

export async function dashboardFigures(em: EntityManager): Promise<DashboardFigures> {
  const [developers, apps, revisions, approved, activity] = await Promise.all([
    em.execute<{ count: number; oldest: string | null }[]>(
      `select count(*)::int as count, min(created_at) as oldest from developers where status = 'PENDING_VERIFICATION'`,
    ),
    em.execute<{ count: number; oldest: string | null }[]>(
      `select count(*)::int as count, min(submitted_at) as oldest from apps where status = 'PENDING'`,
    ),
    em.execute<{ count: number; oldest: string | null }[]>(
      `select count(*)::int as count, min(created_at) as oldest from app_revisions where status = 'PENDING'`,
    ),
    em.execute<{ count: number }[]>(`select count(*)::int as count from apps where status = 'APPROVED'`),
    em.execute<{ date: string; installs: number; uninstalls: number }[]>(
      `select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(s.installs, 0)::int as installs, coalesce(s.uninstalls, 0)::int as uninstalls
       from generate_series((now() at time zone 'utc')::date - 29, (now() at time zone 'utc')::date, interval '1 day') as d(day)
       left join (select day, sum(new_installs + reinstalls) as installs, sum(uninstalls) as uninstalls from app_daily_stats
                  where day >= (now() at time zone 'utc')::date - 29 group by day) s on s.day = d.day::date
       order by d.day`,
    ),
  ]);
  return {
    developersAwaitingVerification: backlog(developers[0], 'verification'),
    appsAwaitingReview: backlog(apps[0], 'review'),
    revisionsAwaitingReview: backlog(revisions[0], 'review'),
    approvedApps: approved[0]?.count ?? 0,
    activityByDay: activity,
  };
}
