import type { EntityManager } from '@mikro-orm/postgresql';
import { containsPattern, pageOfRows, whereOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import type { AuditRow } from '../../../views/admin/audit.ts';
export type { AuditRow } from '../../../views/admin/audit.ts';

export interface AuditFilter extends ListQuery {
  action: string | null;
  subjectType: string | null;
  /** An admin's e-mail, `cli` or `system`. */
  actor: string | null;
}

/**
 * The values a column takes, for the filter's options, by walking its index one value at a time
 * (a loose index scan) instead of reading every entry: the log only grows.
 */
async function distinctValues(em: EntityManager, column: 'action' | 'subject_type'): Promise<string[]> {
  const rows = await em.execute<{ value: string }[]>(
    `with recursive walk(value) as (
       (select ${column} from audit_log order by ${column} limit 1)
       union all
       select (select ${column} from audit_log where ${column} > walk.value order by ${column} limit 1) from walk where walk.value is not null
     ) select value from walk where value is not null`,
  );
  return rows.map((row) => row.value);
}

interface Row {
  id: string;
  actor: string;
  email: string | null;
  actor_role: string | null;
  action: string;
  subject_type: string;
  subject_id: string;
  reason: string | null;
  before: unknown;
  after: unknown;
  created_at: string;
}

const toRow = (row: Row): AuditRow => ({
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
});

export async function listAudit(em: EntityManager, filter: AuditFilter): Promise<ListPage<AuditRow> & { actions: string[]; subjectTypes: string[] }> {
  const pattern = filter.q && containsPattern(filter.q);
  const where = whereOf([
    filter.action && ['l.action = ?', filter.action],
    filter.subjectType && ['l.subject_type = ?', filter.subjectType],
    filter.actor && ['l.actor = ? or lower(a.email) = lower(?)', filter.actor, filter.actor],
    pattern && ['l.subject_id = ? or l.reason ilike ? or l.before::text ilike ? or l.after::text ilike ?', filter.q, pattern, pattern, pattern],
  ]);
  const [page, actions, subjectTypes] = await Promise.all([
    pageOfRows(
      em,
      {
        select: 'l.id, l.actor, a.email, l.actor_role, l.action, l.subject_type, l.subject_id, l.reason, l.before, l.after, l.created_at',
        from: `audit_log l left join admins a on l.actor = 'admin:' || a.id::text`,
        where,
        orderBy: 'l.created_at desc, l.id desc',
      },
      filter,
      toRow,
    ),
    distinctValues(em, 'action'),
    distinctValues(em, 'subject_type'),
  ]);
  return { ...page, actions, subjectTypes };
}
