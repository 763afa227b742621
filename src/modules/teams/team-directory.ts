import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, pageOfRows, whereOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import type { TeamSummary, TeamDossier, ReviewTeam } from '../../../views/admin/teams.ts';
export type { TeamSummary, TeamDossier, ReviewTeam } from '../../../views/admin/teams.ts';

interface Row {
  id: string;
  name: string;
  website_url: string | null;
  verified_domain: string | null;
  suspended_at: string | null;
  created_at: string;
  member_count: number;
  app_count: number;
}

const toSummary = (row: Row): TeamSummary => ({
  id: row.id,
  name: row.name,
  websiteUrl: row.website_url,
  verifiedDomain: row.verified_domain,
  suspended: row.suspended_at !== null,
  createdAt: new Date(row.created_at),
  memberCount: row.member_count,
  appCount: row.app_count,
  actions: [row.suspended_at === null ? 'suspend' : 'reinstate'],
});

const COLUMNS = `t.id, t.name, t.website_url, t.verified_domain, t.suspended_at, t.created_at,
  (select count(*)::int from team_members m where m.team_id = t.id) as member_count,
  (select count(*)::int from apps a where a.team_id = t.id) as app_count`;

export function listTeamsForAdmin(em: EntityManager, filter: ListQuery): Promise<ListPage<TeamSummary>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where = whereOf([pattern && ['t.name ilike ? or t.verified_domain ilike ? or t.id::text = ?', pattern, pattern, filter.q!.toLowerCase()]]);
  return pageOfRows(em, { select: COLUMNS, from: 'teams t', where, orderBy: 't.created_at desc, t.id' }, filter, toSummary);
}

export async function teamSummary(em: EntityManager, id: string): Promise<TeamSummary> {
  const [row] = await em.execute<Row[]>(`select ${COLUMNS} from teams t where t.id = ?`, [id]);
  if (!row) throw notFound('Team');
  return toSummary(row);
}

export async function teamDossier(em: EntityManager, id: string): Promise<TeamDossier> {
  const summary = await teamSummary(em, id);
  const [members, apps, audit] = await Promise.all([
    em.execute<{ developer_id: string; name: string; email: string; role: string; joined_at: string }[]>(
      `select m.developer_id, d.name, d.email, m.role, m.joined_at from team_members m join developers d on d.id = m.developer_id
       where m.team_id = ? order by m.joined_at, m.id`,
      [id],
    ),
    teamApps(em, id),
    em.execute<{ action: string; actor_name: string | null; target: string | null; created_at: string }[]>(
      `select a.action, d.name as actor_name, a.target, a.created_at from team_audit a left join developers d on d.id = a.actor_developer_id
       where a.team_id = ? order by a.created_at desc, a.id desc limit 100`,
      [id],
    ),
  ]);
  return {
    ...summary,
    members: members.map((m) => ({ developerId: m.developer_id, name: m.name, email: m.email, role: m.role, joinedAt: new Date(m.joined_at) })),
    apps,
    audit: audit.map((a) => ({ action: a.action, actorName: a.actor_name, target: a.target, createdAt: new Date(a.created_at) })),
  };
}

/** A team's apps, newest first (also for the review page: the publisher's other listings). */
export async function teamApps(em: EntityManager, teamId: string) {
  const rows = await em.execute<{ id: string; name: string; slug: string; status: string; updated_at: string }[]>(
    'select id, name, slug, status, updated_at from apps where team_id = ? order by created_at desc limit 200',
    [teamId],
  );
  return rows.map((a) => ({ id: a.id, name: a.name, slug: a.slug, status: a.status, updatedAt: new Date(a.updated_at) }));
}

/** For the review page: the team that publishes the app (null for a personal app), its verified domain and its other apps. */
export async function reviewTeamOf(em: EntityManager, appId: string): Promise<ReviewTeam | null> {
  const [row] = await em.execute<{ id: string; name: string; verified_domain: string | null; suspended_at: string | null }[]>(
    'select t.id, t.name, t.verified_domain, t.suspended_at from apps a join teams t on t.id = a.team_id where a.id = ?',
    [appId],
  );
  if (!row) return null;
  const apps = await teamApps(em, row.id);
  return {
    id: row.id,
    name: row.name,
    verifiedDomain: row.verified_domain,
    suspended: row.suspended_at !== null,
    otherApps: apps.filter((app) => app.id !== appId),
  };
}
