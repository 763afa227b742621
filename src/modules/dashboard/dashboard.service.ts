import { raw, type EntityManager, type SelectQueryBuilder } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { App } from '../apps/app.entity.ts';
import { AppRevision } from '../apps/app-revision.entity.ts';
import { Developer } from '../developers/developer.entity.ts';
import { waitingFor } from '../listing-review/review-targets.ts';
import type { Backlog, DashboardFigures } from '../../../views/admin/dashboard.ts';
export type { Backlog, DashboardFigures } from '../../../views/admin/dashboard.ts';

const backlog = (row: { count: number; oldest: string | Date | null } | undefined, kind: 'verification' | 'review'): Backlog => ({
  count: row?.count ?? 0,
  oldest: row?.oldest ? waitingFor(kind, row.oldest) : null,
});

/** How many rows a query matches and the oldest value of `column` among them. */
const countAndOldest = async (qb: SelectQueryBuilder<any>, column: string) =>
  (await qb
    .select([raw('count(*)::int as count'), raw(`min(${column}) as oldest`)])
    .execute<{ count: number; oldest: string | Date | null }>('get', false)) ?? undefined;

export async function dashboardFigures(em: EntityManager): Promise<DashboardFigures> {
  const [developers, apps, revisions, approved, activity] = await Promise.all([
    countAndOldest(em.createQueryBuilder(Developer, 'd').where({ status: 'PENDING_VERIFICATION' }), 'd.created_at'),
    countAndOldest(em.createQueryBuilder(App, 'a').where({ status: 'PENDING' }), 'a.submitted_at'),
    countAndOldest(em.createQueryBuilder(AppRevision, 'r').where({ status: 'PENDING' }), 'r.created_at'),
    em.count(App, { status: 'APPROVED' }),
    // A calendar of 30 days over the roll-up's day rows (generate_series): batch-shaped, so SQL (D106).
    executeNamed<{ date: string; installs: number; uninstalls: number }>(
      em,
      `select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(s.installs, 0)::int as installs, coalesce(s.uninstalls, 0)::int as uninstalls
       from generate_series((now() at time zone 'utc')::date - 29, (now() at time zone 'utc')::date, interval '1 day') as d(day)
       left join (select day, sum(new_installs + reinstalls) as installs, sum(uninstalls) as uninstalls from app_daily_stats
                  where day >= (now() at time zone 'utc')::date - 29 group by day) s on s.day = d.day::date
       order by d.day`,
      {},
    ),
  ]);
  return {
    developersAwaitingVerification: backlog(developers, 'verification'),
    appsAwaitingReview: backlog(apps, 'review'),
    revisionsAwaitingReview: backlog(revisions, 'review'),
    approvedApps: approved,
    activityByDay: activity,
  };
}
