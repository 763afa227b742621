import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { rawKey } from '../../lib/raw-keys.ts';
import { executeNamed } from '../../lib/named-sql.ts';
import { containsPattern, isUuid, listPageOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { Admin } from '../admin-accounts/admin.entity.ts';
import { AuditEntry } from './audit-entry.entity.ts';
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
  // A recursive index walk (raw SQL, D106): WITH RECURSIVE has no entity form.
  const rows = await executeNamed<{ value: string }>(
    em,
    `with recursive walk(value) as (
       (select ${column} from audit_log order by ${column} limit 1)
       union all
       select (select ${column} from audit_log where ${column} > walk.value order by ${column} limit 1) from walk where walk.value is not null
     ) select value from walk where value is not null`,
    {},
  );
  return rows.map((row) => row.value);
}

/** The e-mail of each admin among these actors (`admin:<id>`), by actor; other actors are absent. */
export async function adminEmailsOf(em: EntityManager, actors: string[]): Promise<Map<string, string>> {
  const ids = [...new Set(actors.map((actor) => /^admin:(.+)$/.exec(actor)?.[1]).filter((id): id is string => !!id && isUuid(id)))];
  if (ids.length === 0) return new Map();
  const admins = await em.find(Admin, { id: { $in: ids } }, { fields: ['email'], disableIdentityMap: true });
  return new Map(admins.map((admin) => [`admin:${admin.id}`, admin.email]));
}

/** Who `actor` names in the filter: that actor as recorded, or the admin with that e-mail address. */
async function actorFilter(em: EntityManager, actor: string): Promise<FilterQuery<AuditEntry>> {
  const admins = await em.find(Admin, { [rawKey('lower(email)')]: actor.toLowerCase() }, { fields: ['id'], disableIdentityMap: true });
  return { actor: { $in: [actor, ...admins.map((admin) => `admin:${admin.id}`)] } };
}

export async function listAudit(em: EntityManager, filter: AuditFilter): Promise<ListPage<AuditRow> & { actions: string[]; subjectTypes: string[] }> {
  const pattern = filter.q && containsPattern(filter.q);
  const where: FilterQuery<AuditEntry> = {
    $and: [
      filter.action ? { action: filter.action } : {},
      filter.subjectType ? { subjectType: filter.subjectType } : {},
      filter.actor ? await actorFilter(em, filter.actor) : {},
      pattern
        ? {
            $or: [
              { subjectId: filter.q! },
              { reason: { $ilike: pattern } },
              { [rawKey((l) => `${l}.before::text`)]: { $ilike: pattern } },
              { [rawKey((l) => `${l}.after::text`)]: { $ilike: pattern } },
            ],
          }
        : {},
    ],
  };
  const [[entries, total], actions, subjectTypes] = await Promise.all([
    em.findAndCount(AuditEntry, where, {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: filter.limit,
      offset: filter.offset,
      disableIdentityMap: true,
    }),
    distinctValues(em, 'action'),
    distinctValues(em, 'subject_type'),
  ]);
  const emails = await adminEmailsOf(
    em,
    entries.map((entry) => entry.actor),
  );
  const data = entries.map((entry) => ({
    id: entry.id,
    actor: entry.actor,
    actorEmail: emails.get(entry.actor) ?? null,
    role: entry.actorRole ?? null,
    action: entry.action,
    subjectType: entry.subjectType,
    subjectId: entry.subjectId,
    reason: entry.reason ?? null,
    before: entry.before ?? null,
    after: entry.after ?? null,
    at: entry.createdAt,
  }));
  return { ...listPageOf(data, total, filter), actions, subjectTypes };
}
