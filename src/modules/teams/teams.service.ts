import { LockMode, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../../http/problem.ts';
import { Developer } from '../developers/developer.entity.ts';
import { assertVerified } from '../developers/verification.ts';
import { authorizeTeam, type Caller } from './access.ts';
import { recordTeamAudit } from './team-audit.ts';
import { teamCounts } from './team-counts.ts';
import { Team, TeamMember, type TeamRole } from './team.entity.ts';
import type { CreateTeamInput, TeamView, UpdateTeamInput } from './teams.model.ts';

/** Teams as their members see them. Every route asks `authorizeTeam` first: non-members get 404. */
export const MAX_TEAMS_PER_DEVELOPER = 50;
export const MAX_MEMBERS_PER_TEAM = 100;

const toTeamView = (team: Team, role: TeamRole, counts: { members: number; apps: number }): TeamView => ({
  id: team.id,
  name: team.name,
  websiteUrl: team.websiteUrl ?? null,
  role,
  memberCount: counts.members,
  appCount: counts.apps,
  verifiedDomain: team.verifiedDomain ?? null,
  createdAt: team.createdAt.toISOString(),
  updatedAt: team.updatedAt.toISOString(),
});

/** The teams these memberships name, as their member sees them, oldest first; read afresh (a change may just have been written). */
async function teamViews(em: EntityManager, where: FilterQuery<TeamMember>): Promise<TeamView[]> {
  const memberships = await em.find(TeamMember, where, {
    populate: ['team'],
    orderBy: { team: { createdAt: 'asc', id: 'asc' } },
    disableIdentityMap: true,
  });
  const counts = await teamCounts(
    em,
    memberships.map((membership) => membership.team.id),
  );
  return memberships.map((membership) => toTeamView(membership.team, membership.role, counts.get(membership.team.id)!));
}

export async function teamViewFor(em: EntityManager, developerId: string, teamId: string): Promise<TeamView> {
  const [view] = await teamViews(em, { developer: developerId, team: teamId });
  if (!view) throw notFound('Team');
  return view;
}

/** A developer may belong to at most 50 teams: checked under their row lock, so concurrent joins cannot pass it together. */
export async function assertTeamRoom(tx: EntityManager, developerId: string): Promise<Developer> {
  const developer = await tx.findOneOrFail(Developer, { id: developerId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if ((await tx.count(TeamMember, { developer: developerId })) >= MAX_TEAMS_PER_DEVELOPER) {
    throw new ApiError(409, 'LIMIT_EXCEEDED', `A developer can belong to at most ${MAX_TEAMS_PER_DEVELOPER} teams`);
  }
  return developer;
}

/** A team key acts only inside its team: it can neither create another team nor see others. */
const assertPersonalCredential = (caller: Caller) => {
  if (caller.keyTeamId !== null) throw new ApiError(403, 'FORBIDDEN', 'A team API key acts only for its own team');
};

export async function createTeam(em: EntityManager, caller: Caller, input: CreateTeamInput): Promise<TeamView> {
  assertPersonalCredential(caller);
  const team = await em.transactional(async (tx) => {
    const developer = await assertTeamRoom(tx, caller.developerId);
    assertVerified(developer.status, { what: 'Teams', done: 'created' });
    const created = tx.create(Team, { name: input.name, websiteUrl: input.websiteUrl ?? null });
    tx.create(TeamMember, { team: created, developer, role: 'owner' });
    // The audit row names the team by id only, so the team must be written first.
    await tx.flush();
    recordTeamAudit(tx, { teamId: created.id, actorDeveloperId: developer.id, action: 'team.created', details: { name: input.name } });
    return created;
  });
  return teamViewFor(em, caller.developerId, team.id);
}

export async function listTeams(em: EntityManager, caller: Caller): Promise<TeamView[]> {
  return teamViews(em, { developer: caller.developerId, ...(caller.keyTeamId && { team: caller.keyTeamId }) });
}

export async function getTeam(em: EntityManager, caller: Caller, teamId: string): Promise<TeamView> {
  await authorizeTeam(em, caller, teamId, 'read');
  return teamViewFor(em, caller.developerId, teamId);
}

export async function updateTeam(em: EntityManager, caller: Caller, teamId: string, input: UpdateTeamInput): Promise<TeamView> {
  await em.transactional(async (tx) => {
    await authorizeTeam(tx, caller, teamId, 'manage', { lock: true });
    const team = await tx.findOneOrFail(Team, { id: teamId });
    const before = { name: team.name, websiteUrl: team.websiteUrl ?? null };
    if (input.name !== undefined) team.name = input.name;
    if (input.websiteUrl !== undefined) team.websiteUrl = input.websiteUrl;
    recordTeamAudit(tx, {
      teamId,
      actorDeveloperId: caller.developerId,
      action: 'team.updated',
      details: { before, after: { name: team.name, websiteUrl: team.websiteUrl ?? null } },
    });
  });
  return teamViewFor(em, caller.developerId, teamId);
}

/** Only an empty team can go (409 TEAM_NOT_EMPTY while it owns an app): its listings must not be orphaned. */
export async function deleteTeam(em: EntityManager, caller: Caller, teamId: string): Promise<TeamView> {
  return em.transactional(async (tx) => {
    await authorizeTeam(tx, caller, teamId, 'manage', { lock: true });
    const view = await teamViewFor(tx, caller.developerId, teamId);
    if (view.appCount > 0) {
      throw new ApiError(409, 'TEAM_NOT_EMPTY', `The team still owns ${view.appCount} app(s): transfer or delete them first`);
    }
    await tx.nativeDelete(Team, { id: teamId });
    return view;
  });
}
