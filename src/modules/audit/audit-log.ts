import type { EntityManager } from '@mikro-orm/postgresql';
import { containsPattern, totalPages, type ListQuery } from '../../http/console-lists.ts';

/**
 * The audit log as the console reads it, newest first, filtered by who, what and on which
 * subject. There is deliberately no way here (or anywhere) to change or remove an entry: the
 * table refuses updates and deletes itself.
 */
export interface AuditRow {
  id: string;
  actor: string;
  /** The admin's e-mail when the actor is an admin that still exists. */
  actorEmail: string | null;
  role: string | null;
  action: string;
  subjectType: string;
  subjectId: string;
  reason: string | null;
  before: unknown;
  after: unknown;
  at: Date;
}

export interface AuditFilter extends ListQuery {
  action: string | null;
  subjectType: string | null;
  /** An admin's e-mail fragment, `cli` or `system`. */
  actor: string | null;
}

export async function listAudit(em: EntityManager, filter: AuditFilter): Promise<{ data: AuditRow[]; total: number; totalPages: number; actions: string[]; subjectTypes: string[] }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.action) {
    where.push('l.action = ?');
    params.push(filter.action);
  }
  if (filter.subjectType) {
    where.push('l.subject_type = ?');
    params.push(filter.subjectType);
  }
  if (filter.actor) {
    where.push('(l.actor = ? or a.email ilike ?)');
    params.push(filter.actor, containsPattern(filter.actor));
  }
  if (filter.q) {
    where.push('(l.subject_id = ? or l.reason ilike ? or l.before::text ilike ? or l.after::text ilike ?)');
    const pattern = containsPattern(filter.q);
    params.push(filter.q, pattern, pattern, pattern);
  }
  const clause = where.length ? `where ${where.join(' and ')}` : '';
  const from = `from audit_log l left join admins a on l.actor = 'admin:' || a.id::text`;
  const [rows, counted, actions, subjectTypes] = await Promise.all([
    em.execute<{ id: string; actor: string; email: string | null; actor_role: string | null; action: string; subject_type: string; subject_id: string; reason: string | null; before: unknown; after: unknown; created_at: string }[]>(
      `select l.id, l.actor, a.email, l.actor_role, l.action, l.subject_type, l.subject_id, l.reason, l.before, l.after, l.created_at
       ${from} ${clause} order by l.created_at desc, l.id desc limit ? offset ?`,
      [...params, filter.limit, filter.offset],
    ),
    em.execute<{ total: number }[]>(`select count(*)::int as total ${from} ${clause}`, params),
    em.execute<{ action: string }[]>('select distinct action from audit_log order by action'),
    em.execute<{ subject_type: string }[]>('select distinct subject_type from audit_log order by subject_type'),
  ]);
  const total = counted[0]?.total ?? 0;
  return {
    data: rows.map((row) => ({
      id: row.id,
      actor: row.actor,
      actorEmail: row.email,
      role: row.actor_role,
      action: row.action,
      subjectType: row.subject_type,
      subjectId: row.subject_id,
      reason: row.reason,
      before: row.before,
      after: row.after,
      at: new Date(row.created_at),
    })),
    total,
    totalPages: totalPages(total, filter.limit),
    actions: actions.map((r) => r.action),
    subjectTypes: subjectTypes.map((r) => r.subject_type),
  };
}
