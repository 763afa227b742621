import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Value } from '@sinclair/typebox/value';
import { ApiError, notFound } from '../../http/problem.ts';
import { Uuid } from '../../http/schemas.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import { bumpCatalogueVersion } from '../catalogue/catalogue-version.ts';
import { enqueueCategoryCounts } from '../stats/stats.service.ts';
import { recordTeamAudit } from './team-audit.ts';
import { Team } from './team.entity.ts';
import type { TeamAction } from '../../../views/admin/teams.ts';
export type { TeamAction } from '../../../views/admin/teams.ts';

/** A team by id, or by its name (case-insensitive); a name several teams share is refused, naming how many. */
export async function findTeamByRef(em: EntityManager, ref: string, options: { lock?: boolean } = {}): Promise<Team> {
  const lock = options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE as const } : {};
  if (Value.Check(Uuid, ref)) {
    const team = await em.findOne(Team, { id: ref.toLowerCase() }, lock);
    if (team) return team;
  }
  const named = await em.find(Team, { name: { $ilike: ref.replace(/[\\%_]/g, '\\$&') } }, { ...lock, limit: 2 });
  if (named.length > 1) throw new ApiError(409, 'CONFLICT', `Several teams are named "${ref}": use the team's id`);
  if (!named[0]) throw notFound('Team');
  return named[0];
}

/**
 * Suspension takes the team's apps out of the catalogue (their slugs answer 410) and stops its
 * members acting for it (403 TEAM_SUSPENDED); reinstatement undoes both. Each refuses a team
 * already in the state asked for, so a decision made on a stale page changes nothing.
 */
export async function transitionTeam(
  { em, jobs }: { em: EntityManager; jobs: JobQueue },
  ref: string,
  action: TeamAction,
  actor: Actor,
): Promise<Team> {
  return em.transactional(async (tx) => {
    const team = await findTeamByRef(tx, ref, { lock: true });
    const suspended = team.suspendedAt != null;
    if (suspended === (action === 'suspend')) {
      throw new ApiError(409, 'INVALID_STATE_TRANSITION', `The team is ${suspended ? 'already suspended' : 'not suspended'}`);
    }
    team.suspendedAt = action === 'suspend' ? new Date() : null;
    recordAudit(tx, actor, {
      action: `team.${action}`,
      subjectType: 'team',
      subjectId: team.id,
      before: { suspended },
      after: { suspended: !suspended },
    });
    recordTeamAudit(tx, { teamId: team.id, actorDeveloperId: null, action: action === 'suspend' ? 'team.suspended' : 'team.reinstated' });
    await enqueueCategoryCounts(jobs, tx);
    await bumpCatalogueVersion(tx);
    return team;
  });
}
