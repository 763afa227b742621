import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditEntry } from './audit-entry.entity.ts';

export interface Actor {
  /** `admin:<id>`, `cli` or `system`. */
  label: string;
  /** An admin's role at the time of the action. */
  role?: string;
}

export const CLI_ACTOR: Actor = { label: 'cli' };

/** Adds an audit row to the caller's unit of work, so it commits or rolls back with the change; returns it. */
export function recordAudit(
  em: EntityManager,
  actor: Actor,
  entry: { action: string; subjectType: string; subjectId: string; before?: object | null; after?: object | null; reason?: string | null },
): AuditEntry {
  return em.create(AuditEntry, {
    actor: actor.label,
    actorRole: actor.role ?? null,
    action: entry.action,
    subjectType: entry.subjectType,
    subjectId: entry.subjectId,
    before: (entry.before ?? null) as Record<string, unknown> | null,
    after: (entry.after ?? null) as Record<string, unknown> | null,
    reason: entry.reason ?? null,
  });
}
