import { defineEntity, p } from '@mikro-orm/postgresql';

/** WITHDRAWN: its developer took it back before a decision. */
export const REVISION_STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'WITHDRAWN'] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

/**
 * A proposed change to an approved app. `changes` holds the validated update payload (as PUT
 * takes it); the live listing is untouched until an admin approves, which applies it atomically.
 */
const AppRevisionSchema = defineEntity({
  name: 'AppRevision',
  tableName: 'app_revisions',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    appId: p.uuid(),
    changes: p.json<Record<string, unknown>>(),
    status: p.enum(REVISION_STATUSES).default('PENDING'),
    version: p.integer().default(1),
    rejectionReason: p.text().nullable(),
    decidedBy: p.string().nullable(),
    decidedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export class AppRevision extends AppRevisionSchema.class {}
AppRevisionSchema.setClass(AppRevision);
