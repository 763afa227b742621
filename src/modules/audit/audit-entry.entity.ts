import { defineEntity, p } from '@mikro-orm/postgresql';

/** Append-only: rows are inserted by services and never updated or deleted (a trigger refuses it). */
const AuditEntrySchema = defineEntity({
  name: 'AuditEntry',
  tableName: 'audit_log',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    /** `admin:<id>`, `cli` or `system`. */
    actor: p.string(),
    /** The admin's role when they acted (null for `cli` and `system`). */
    actorRole: p.string().nullable(),
    action: p.string(),
    subjectType: p.string(),
    subjectId: p.string(),
    before: p.json<Record<string, unknown>>().nullable(),
    after: p.json<Record<string, unknown>>().nullable(),
    reason: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class AuditEntry extends AuditEntrySchema.class {}
AuditEntrySchema.setClass(AuditEntry);
