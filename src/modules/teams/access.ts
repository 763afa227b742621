import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { ApiError, notFound, type ErrorCode } from '../../http/problem.ts';
import type { DeveloperPrincipal } from '../identity/auth.ts';
import { App } from '../apps/app.entity.ts';
import { TEAM_ROLES, type TeamRole } from './team.entity.ts';

/**
 * The one authorisation check for apps and teams. Every app route (read, edit, submit,
 * preflight, revisions, delete, analytics, replies, transfer), every team route and every
 * team-scoped key or webhook operation asks here, so a new route cannot forget a rule:
 * - a personal app admits its developer; a team app admits the team's members by role;
 * - a key restricted to a team reaches only that team (404 for anything else);
 * - anyone else gets 404 (existence is never revealed); a member whose role is too weak gets
 *   403 TEAM_ROLE_REQUIRED; a suspended team 403 TEAM_SUSPENDED; a suspended developer acts
 *   for no team (403 DEVELOPER_SUSPENDED).
 * The key's scopes are checked by the route's guard before this runs, so a request's rights are
 * the role's rights ∩ the key's scopes.
 */

/** Who acts: the developer, and the team their key is restricted to (null: the OAuth token or a personal key). */
export interface Caller {
  developerId: string;
  keyTeamId: string | null;
}

export const callerOf = (principal: DeveloperPrincipal): Caller => ({
  developerId: principal.developerId,
  keyTeamId: principal.via === 'apiKey' ? principal.key.teamId : null,
});

/** What a request on an app needs, and the weakest team role that has it. */
export const APP_RIGHTS = {
  read: 'analyst',
  analytics: 'analyst',
  create: 'maintainer',
  edit: 'maintainer',
  submit: 'maintainer',
  revise: 'maintainer',
  delete: 'maintainer',
  reply: 'maintainer',
  webhooks: 'maintainer',
  transfer: 'owner',
  manage: 'owner',
} as const satisfies Record<string, TeamRole>;
export type AppRight = keyof typeof APP_RIGHTS;

const rank = (role: TeamRole) => TEAM_ROLES.length - TEAM_ROLES.indexOf(role);
export const roleAtLeast = (role: TeamRole, needed: TeamRole) => rank(role) >= rank(needed);

/**
 * What `authorizeTeam` (and `authorizeApp` on a team's app) refuses with for `right`, beside the
 * throws below: every route that asks them lists these among its problems, so the API document
 * says what it answers. A right every member has cannot be refused for the role.
 */
export function accessProblems(right: AppRight): ErrorCode[] {
  const codes: ErrorCode[] = ['NOT_FOUND', 'DEVELOPER_SUSPENDED', 'TEAM_SUSPENDED'];
  if (!roleAtLeast(TEAM_ROLES[TEAM_ROLES.length - 1]!, APP_RIGHTS[right])) codes.push('TEAM_ROLE_REQUIRED');
  return codes;
}

export interface Membership {
  teamId: string;
  teamName: string;
  role: TeamRole;
}

/**
 * The caller's membership of a team, allowed `right`: 404 (as `hidden`) to a non-member or a key
 * restricted to another team, 403 for a suspended developer or team or a role too weak.
 * `lock` takes the team row (serialising membership changes).
 */
export async function authorizeTeam(
  em: EntityManager,
  caller: Caller,
  teamId: string,
  right: AppRight,
  options: { hidden?: ApiError; lock?: boolean } = {},
): Promise<Membership> {
  const hidden = options.hidden ?? notFound('Team');
  if (caller.keyTeamId !== null && caller.keyTeamId !== teamId) throw hidden;
  // Raw SQL: one indexed read on the hot path of every team request, membership and both statuses together.
  const [row] = await executeNamed<{ role: TeamRole; name: string; suspended: boolean; developer_status: string }>(
    em,
    `select m.role, t.name, t.suspended_at is not null as suspended, d.status as developer_status
     from team_members m join teams t on t.id = m.team_id join developers d on d.id = m.developer_id
     where m.team_id = :teamId and m.developer_id = :developerId${options.lock ? ' for update of t' : ''}`,
    { teamId, developerId: caller.developerId },
  );
  if (!row) throw hidden;
  if (row.developer_status === 'SUSPENDED') {
    throw new ApiError(403, 'DEVELOPER_SUSPENDED', 'A suspended developer cannot act for a team');
  }
  if (row.suspended) throw new ApiError(403, 'TEAM_SUSPENDED', 'This team is suspended by the marketplace');
  const needed = APP_RIGHTS[right];
  if (!roleAtLeast(row.role, needed)) {
    throw new ApiError(403, 'TEAM_ROLE_REQUIRED', `This needs the ${needed} role in the team (yours: ${row.role})`);
  }
  return { teamId, teamName: row.name, role: row.role };
}

/**
 * The app, if the caller may exercise `right` on it; locked for the rest of the transaction when
 * `lock` is set (every change to an app happens under its row lock).
 */
export async function authorizeApp(
  em: EntityManager,
  caller: Caller,
  appId: string,
  right: AppRight,
  options: { lock?: boolean } = {},
): Promise<App> {
  const app = await em.findOne(App, { id: appId }, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!app) throw notFound('App');
  const teamId = app.teamId ?? null;
  if (caller.keyTeamId !== null && teamId !== caller.keyTeamId) throw notFound('App');
  if (teamId === null) {
    if (app.developer.id !== caller.developerId) throw notFound('App');
    return app;
  }
  await authorizeTeam(em, caller, teamId, right, { hidden: notFound('App') });
  return app;
}

export const lockAppFor = (tx: EntityManager, caller: Caller, appId: string, right: AppRight) =>
  authorizeApp(tx, caller, appId, right, { lock: true });
