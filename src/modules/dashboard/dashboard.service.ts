import type { EntityManager } from '@mikro-orm/postgresql';
import { waitingFor, type Waiting } from '../apps/review-targets.ts';

/**
 * The numbers on the console's front page: what waits for an admin (and the oldest of each
 * against its target), how many apps are live, and installs per day over the last 30 days.
 */
export interface Backlog {
  count: number;
  oldest: Waiting | null;
}

export interface DashboardFigures {
  developersAwaitingVerification: Backlog;
  appsAwaitingReview: Backlog;
  revisionsAwaitingReview: Backlog;
  approvedApps: number;
  /** Oldest day first, 30 entries, days without installs included. */
  installsByDay: { day: string; installs: number }[];
}

const backlog = (row: { count: number; oldest: string | null } | undefined, kind: 'verification' | 'review'): Backlog => ({
  count: row?.count ?? 0,
  oldest: row?.oldest ? waitingFor(kind, row.oldest) : null,
});

export async function dashboardFigures(em: EntityManager): Promise<DashboardFigures> {
  const [developers, apps, revisions, approved, installs] = await Promise.all([
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
    em.execute<{ day: string; installs: number }[]>(
      `select to_char(d.day, 'YYYY-MM-DD') as day, coalesce(i.installs, 0)::int as installs
       from generate_series((now() at time zone 'utc')::date - 29, (now() at time zone 'utc')::date, interval '1 day') as d(day)
       left join (select (installed_at at time zone 'utc')::date as day, count(*) as installs from installs
                  where installed_at >= ((now() at time zone 'utc')::date - 29)::timestamp at time zone 'utc' group by 1) i on i.day = d.day::date
       order by d.day`,
    ),
  ]);
  return {
    developersAwaitingVerification: backlog(developers[0], 'verification'),
    appsAwaitingReview: backlog(apps[0], 'review'),
    revisionsAwaitingReview: backlog(revisions[0], 'review'),
    approvedApps: approved[0]?.count ?? 0,
    installsByDay: installs,
  };
}
