import type { EntityManager } from '@mikro-orm/postgresql';
import { t, type Static } from 'elysia';
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts';
import { lockOwnApp } from './app-locks.ts';
import { AppRevision, REVISION_STATUSES } from './app-revision.entity.ts';

export const RevisionRecordView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    status: t.UnionEnum(REVISION_STATUSES),
    version: t.Integer(),
    changes: t.Record(t.String(), t.Unknown(), { description: 'The fields the revision changed (or proposes to), as PUT takes them' }),
    rejectionReason: t.Union([t.String(), t.Null()]),
    createdAt: Timestamp,
    decidedAt: NullableTimestamp,
  },
  { description: 'A proposed change to an approved app and what became of it' },
);
export type RevisionRecordView = Static<typeof RevisionRecordView>;

/** An app's revisions, newest first: how a publisher learns whether (and why) a revision was rejected. */
export async function listRevisions(em: EntityManager, developerId: string, appId: string): Promise<RevisionRecordView[]> {
  return em.transactional(async (tx) => {
    const app = await lockOwnApp(tx, developerId, appId);
    const revisions = await tx.find(AppRevision, { appId: app.id }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 100 });
    return revisions.map((revision) => ({
      id: revision.id,
      status: revision.status,
      version: revision.version,
      changes: revision.changes,
      rejectionReason: revision.rejectionReason ?? null,
      createdAt: revision.createdAt.toISOString(),
      decidedAt: revision.decidedAt?.toISOString() ?? null,
    }));
  });
}
