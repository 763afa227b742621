import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../../http/problem.ts';
import { Developer } from '../developers/developer.entity.ts';
import { assertVerified } from '../developers/verification.ts';
import { authorizeTeam, type Caller } from './access.ts';
import { recordTeamAudit } from './team-audit.ts';
import { Team, TeamMember, type TeamRole } from './team.entity.ts';
import type { CreateTeamInput, TeamView, UpdateTeamInput } from './teams.model.ts';

/** Teams as their members see them. Every route asks `authorizeTeam` first: non-members get 404. */
export const MAX_TEAMS_PER_DEVELOPER = 50;
export const MAX_MEMBERS_PER_TEAM = 100;

interface TeamRow {
  id: string;
  name: string;
  website_url: string | null;
  verified_domain: string | null;
  role: TeamRole;
  member_count: number;
  app_count: number;
  created_at: string;
  updated_at: string;
}

const toTeamView = (row: TeamRow): TeamView => ({
  id: row.id,
  name: row.name,
  websiteUrl: row.website_url,
  role: row.role,
  memberCount: row.member_count,
  appCount: row.app_count,
  verifiedDomain: row.verified_domain,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

// Raw SQL: the counts of every listed team in one statement.
const TEAM_ROWS = `select t.id, t.name, t.website_url, t.verified_domain, m.role, t.created_at, t.updated_at,
    (select count(*)::int from team_members x where x.team_id = t.id) as member_count,
    (select count(*)::int from apps a where a.team_id = t.id) as app_count
  from team_members m join teams t on t.id = m.team_id`;

export async function teamViewFor(em: EntityManager, developerId: string, teamId: string): Promise<TeamView> {
  const [row] = await em.execute<TeamRow[]>(`${TEAM_ROWS} where m.developer_id = ? and t.id = ?`, [developerId, teamId]);
  if (!row) throw notFound('Team');
  return toTeamView(row);
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
  const rows = await em.execute<TeamRow[]>(
    `${TEAM_ROWS} where m.developer_id = ?${caller.keyTeamId ? ' and t.id = ?' : ''} order by t.created_at, t.id`,
    caller.keyTeamId ? [caller.developerId, caller.keyTeamId] : [caller.developerId],
  );
  return rows.map(toTeamView);
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
