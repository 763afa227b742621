import { raw, type EntityManager, type SelectQueryBuilder } from '@mikro-orm/postgresql';
import { App } from '../apps/app.entity.ts';
import { AppRevision } from '../apps/app-revision.entity.ts';
import { Developer } from '../developers/developer.entity.ts';
import { AppDailyStats } from '../stats/app-daily-stats.entity.ts';
import { daysOf, lastDays } from '../analytics/analytics.service.ts';
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

/** The installs chart's days: the last 30, today included. */
const CALENDAR_DAYS = 30;

export async function dashboardFigures(em: EntityManager): Promise<DashboardFigures> {
  const calendar = lastDays(CALENDAR_DAYS);
  const [developers, apps, revisions, approved, activity] = await Promise.all([
    countAndOldest(em.createQueryBuilder(Developer, 'd').where({ status: 'PENDING_VERIFICATION' }), 'd.created_at'),
    countAndOldest(em.createQueryBuilder(App, 'a').where({ status: 'PENDING' }), 'a.submitted_at'),
    countAndOldest(em.createQueryBuilder(AppRevision, 'r').where({ status: 'PENDING' }), 'r.created_at'),
    em.count(App, { status: 'APPROVED' }),
    em
      .createQueryBuilder(AppDailyStats, 's')
      .select(['s.day', raw('sum(s.new_installs + s.reinstalls)::int as installs'), raw('sum(s.uninstalls)::int as uninstalls')])
      .where({ day: { $gte: calendar.from, $lte: calendar.to } })
      .groupBy('s.day')
      .execute<{ day: string; installs: number; uninstalls: number }[]>('all'),
  ]);
  return {
    developersAwaitingVerification: backlog(developers, 'verification'),
    appsAwaitingReview: backlog(apps, 'review'),
    revisionsAwaitingReview: backlog(revisions, 'review'),
    approvedApps: approved,
    // Every day of the calendar, a day without a row as zeros.
    activityByDay: daysOf(calendar).map((date) => {
      const day = activity.find((row) => row.day === date);
      return { date, installs: day?.installs ?? 0, uninstalls: day?.uninstalls ?? 0 };
    }),
  };
}
