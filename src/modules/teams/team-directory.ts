import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, isUuid, listPageOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { App } from '../apps/app.entity.ts';
import { Team, TeamAuditEntry, TeamMember } from './team.entity.ts';
import { actorNamesOf } from './team-audit.ts';
import { teamCounts } from './team-counts.ts';
import type { TeamSummary, TeamDossier, ReviewTeam } from '../../../views/admin/teams.ts';
export type { TeamSummary, TeamDossier, ReviewTeam } from '../../../views/admin/teams.ts';

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
  const counts = await teamCounts(
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
  return toSummary(team, (await teamCounts(em, [id])).get(id)!);
}

export async function teamDossier(em: EntityManager, id: string): Promise<TeamDossier> {
  const summary = await teamSummary(em, id);
  const [members, apps, audit] = await Promise.all([
    em.find(TeamMember, { team: id }, { populate: ['developer'], orderBy: { joinedAt: 'asc', id: 'asc' }, disableIdentityMap: true }),
    teamApps(em, id),
    em.find(TeamAuditEntry, { teamId: id }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 100, disableIdentityMap: true }),
  ]);
  const actorName = await actorNamesOf(em, audit);
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
