import type { EntityManager } from '@mikro-orm/postgresql';
import { pageOf, pageWindow, type Page, type PageInput } from '../../http/pagination.ts';
import { authorizeTeam, type Caller } from './access.ts';
import { TeamAuditEntry } from './team.entity.ts';
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

interface AuditRow {
  id: string;
  actor_developer_id: string | null;
  actor_name: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown> | null;
  created_at: string;
}

/** The team's audit, newest first, for its owners. */
export async function listTeamAudit(em: EntityManager, caller: Caller, teamId: string, query: PageInput): Promise<Page<TeamAuditView>> {
  await authorizeTeam(em, caller, teamId, 'manage');
  const { page, limit, offset } = pageWindow(query);
  const [rows, [counted]] = await Promise.all([
    em.execute<AuditRow[]>(
      `select a.id, a.actor_developer_id, d.name as actor_name, a.action, a.target, a.details, a.created_at
       from team_audit a left join developers d on d.id = a.actor_developer_id
       where a.team_id = ? order by a.created_at desc, a.id desc limit ? offset ?`,
      [teamId, limit, offset],
    ),
    em.execute<{ total: number }[]>('select count(*)::int as total from team_audit where team_id = ?', [teamId]),
  ]);
  const data = rows.map((row) => ({
    id: row.id,
    actor: row.actor_developer_id && row.actor_name ? { developerId: row.actor_developer_id, name: row.actor_name } : null,
    action: row.action,
    target: row.target,
    details: row.details,
    createdAt: new Date(row.created_at).toISOString(),
  }));
  return pageOf(data, page, limit, counted?.total ?? 0);
}
