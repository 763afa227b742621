import type { EntityManager } from '@mikro-orm/postgresql';
import { pageOf, pageWindow, type Page, type PageInput } from '../../http/pagination.ts';
import { authorizeTeam, type Caller } from './access.ts';
import { TeamAuditEntry } from './team.entity.ts';
import { Developer } from '../developers/developer.entity.ts';
import type { TeamAuditView } from './teams.model.ts';

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

/** The names of the developers who acted in these entries, by id (those since deleted are absent). */
export async function actorNamesOf(em: EntityManager, entries: TeamAuditEntry[]): Promise<Map<string, string>> {
  const ids = [...new Set(entries.flatMap((entry) => (entry.actorDeveloperId ? [entry.actorDeveloperId] : [])))];
  if (ids.length === 0) return new Map();
  const developers = await em.find(Developer, { id: { $in: ids } }, { fields: ['name'], disableIdentityMap: true });
  return new Map(developers.map((developer) => [developer.id, developer.name]));
}

/** The team's audit, newest first, for its owners. */
export async function listTeamAudit(em: EntityManager, caller: Caller, teamId: string, query: PageInput): Promise<Page<TeamAuditView>> {
  await authorizeTeam(em, caller, teamId, 'manage');
  const { page, limit, offset } = pageWindow(query);
  const [entries, total] = await em.findAndCount(
    TeamAuditEntry,
    { teamId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit, offset, disableIdentityMap: true },
  );
  const names = await actorNamesOf(em, entries);
  const data = entries.map((entry) => {
    const name = entry.actorDeveloperId ? names.get(entry.actorDeveloperId) : undefined;
    return {
      id: entry.id,
      actor: entry.actorDeveloperId && name ? { developerId: entry.actorDeveloperId, name } : null,
      action: entry.action,
      target: entry.target ?? null,
      details: entry.details ?? null,
      createdAt: entry.createdAt.toISOString(),
    };
  });
  return pageOf(data, page, limit, total);
}
