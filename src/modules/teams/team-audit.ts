import type { EntityManager } from '@mikro-orm/postgresql';
import { TeamAuditEntry } from './team.entity.ts';

/** Records what happened to a team, in the transaction of the change itself. */
export function recordTeamAudit(
  tx: EntityManager,
  entry: { teamId: string; actorDeveloperId: string | null; action: string; target?: string | null; details?: Record<string, unknown> | null },
): void {
  tx.create(TeamAuditEntry, {
    teamId: entry.teamId,
    actorDeveloperId: entry.actorDeveloperId,
    action: entry.action,
    target: entry.target ?? null,
    details: entry.details ?? null,
  });
}
