import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, isUuid, listPageOf, type ListPage, type ListQuery } from '../../http/console-lists.ts';
import { App } from '../apps/app.entity.ts';
import { Developer } from '../developers/developer.entity.ts';
import { Team, TeamAuditEntry, TeamMember } from './team.entity.ts';
import type { TeamAction } from './team-admin.service.ts';

/** Teams as administrators look them up: a searchable list, and one team with its members, apps and audit. */
export interface TeamSummary {
  id: string;
  name: string;
  websiteUrl: string | null;
  verifiedDomain: string | null;
  suspended: boolean;
  createdAt: Date;
  memberCount: number;
  appCount: number;
  actions: TeamAction[];
}

const toSummary = (team: Team, counts: { members: number; apps: number }): TeamSummary => ({
  id: team.id,
  name: team.name,
  websiteUrl: team.websiteUrl ?? null,
  verifiedDomain: team.verifiedDomain ?? null,
  suspended: team.suspendedAt != null,
  createdAt: team.createdAt,
  memberCount: counts.members,
  appCount: counts.apps,
  actions: [team.suspendedAt == null ? 'suspend' : 'reinstate'],
});

/** Members and apps per team, by id (two grouped counts for a page). */
async function countsOf(em: EntityManager, ids: string[]): Promise<Map<string, { members: number; apps: number }>> {
  const counts = new Map(ids.map((id) => [id, { members: 0, apps: 0 }]));
  if (ids.length === 0) return counts;
  const [members, apps] = await Promise.all([
    em
      .createQueryBuilder(TeamMember, 'm')
      .select([raw('m.team_id as team_id'), raw('count(*)::int as n')])
      .where({ team: { $in: ids } })
      .groupBy('m.team')
      .execute<{ team_id: string; n: number }[]>('all', false),
    em
      .createQueryBuilder(App, 'a')
      .select([raw('a.team_id as team_id'), raw('count(*)::int as n')])
      .where({ teamId: { $in: ids } })
      .groupBy('a.teamId')
      .execute<{ team_id: string; n: number }[]>('all', false),
  ]);
  for (const row of members) counts.get(row.team_id)!.members = row.n;
  for (const row of apps) counts.get(row.team_id)!.apps = row.n;
  return counts;
}

export async function listTeamsForAdmin(em: EntityManager, filter: ListQuery): Promise<ListPage<TeamSummary>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where: FilterQuery<Team> = pattern
    ? {
        $or: [
          { name: { $ilike: pattern } },
          { verifiedDomain: { $ilike: pattern } },
          ...(isUuid(filter.q!) ? [{ id: filter.q!.toLowerCase() }] : []),
        ],
      }
    : {};
  const [teams, total] = await em.findAndCount(Team, where, {
    orderBy: { createdAt: 'desc', id: 'asc' },
    limit: filter.limit,
    offset: filter.offset,
    disableIdentityMap: true,
  });
  const counts = await countsOf(
    em,
    teams.map((team) => team.id),
  );
  return listPageOf(
    teams.map((team) => toSummary(team, counts.get(team.id)!)),
    total,
    filter,
  );
}

export async function teamSummary(em: EntityManager, id: string): Promise<TeamSummary> {
  const team = await em.findOne(Team, { id }, { disableIdentityMap: true });
  if (!team) throw notFound('Team');
  return toSummary(team, (await countsOf(em, [id])).get(id)!);
}

export interface TeamDossier extends TeamSummary {
  members: { developerId: string; name: string; email: string; role: string; joinedAt: Date }[];
  apps: { id: string; name: string; slug: string; status: string; updatedAt: Date }[];
  audit: { action: string; actorName: string | null; target: string | null; createdAt: Date }[];
}

export async function teamDossier(em: EntityManager, id: string): Promise<TeamDossier> {
  const summary = await teamSummary(em, id);
  const [members, apps, audit] = await Promise.all([
    em.find(TeamMember, { team: id }, { populate: ['developer'], orderBy: { joinedAt: 'asc', id: 'asc' }, disableIdentityMap: true }),
    teamApps(em, id),
    em.find(TeamAuditEntry, { teamId: id }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 100, disableIdentityMap: true }),
  ]);
  const actorIds = [...new Set(audit.flatMap((a) => (a.actorDeveloperId ? [a.actorDeveloperId] : [])))];
  const actors = actorIds.length ? await em.find(Developer, { id: { $in: actorIds } }, { disableIdentityMap: true }) : [];
  const actorName = new Map(actors.map((d) => [d.id, d.name]));
  return {
    ...summary,
    members: members.map((m) => ({
      developerId: m.developer.id,
      name: m.developer.name,
      email: m.developer.email,
      role: m.role,
      joinedAt: m.joinedAt,
    })),
    apps,
    audit: audit.map((a) => ({
      action: a.action,
      actorName: (a.actorDeveloperId && actorName.get(a.actorDeveloperId)) ?? null,
      target: a.target ?? null,
      createdAt: a.createdAt,
    })),
  };
}

/** A team's apps, newest first (also for the review page: the publisher's other listings). */
export async function teamApps(em: EntityManager, teamId: string) {
  const apps = await em.find(App, { teamId }, { orderBy: { createdAt: 'desc' }, limit: 200, disableIdentityMap: true });
  return apps.map((a) => ({ id: a.id, name: a.name, slug: a.slug, status: a.status as string, updatedAt: a.updatedAt }));
}

export interface ReviewTeam {
  id: string;
  name: string;
  verifiedDomain: string | null;
  suspended: boolean;
  otherApps: TeamDossier['apps'];
}

/** For the review page: the team that publishes the app (null for a personal app), its verified domain and its other apps. */
export async function reviewTeamOf(em: EntityManager, appId: string): Promise<ReviewTeam | null> {
  const app = await em.findOne(App, { id: appId }, { disableIdentityMap: true });
  const team = app?.teamId ? await em.findOne(Team, { id: app.teamId }, { disableIdentityMap: true }) : null;
  if (!team) return null;
  const apps = await teamApps(em, team.id);
  return {
    id: team.id,
    name: team.name,
    verifiedDomain: team.verifiedDomain ?? null,
    suspended: team.suspendedAt != null,
    otherApps: apps.filter((app) => app.id !== appId),
  };
}
