import type { EntityManager } from '@mikro-orm/postgresql';
import { t, type Static } from 'elysia';
import { Integer, NullableTimestamp, Timestamp } from '../../http/schemas.ts';
import { authorizeApp, type Caller } from '../teams/access.ts';
import { AppRevision, REVISION_STATUSES } from './app-revision.entity.ts';

export const RevisionRecordView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    status: t.UnionEnum(REVISION_STATUSES),
    version: Integer(),
    changes: t.Record(t.String(), t.Unknown(), { description: 'The fields the revision changed (or proposes to), as PUT takes them' }),
    rejectionReason: t.Union([t.String(), t.Null()]),
    createdAt: Timestamp,
    decidedAt: NullableTimestamp,
  },
  { description: 'A proposed change to an approved app and what became of it' },
);
export type RevisionRecordView = Static<typeof RevisionRecordView>;

/** An app's revisions, newest first: how a publisher learns whether (and why) a revision was rejected. */
export async function listRevisions(em: EntityManager, caller: Caller, appId: string): Promise<RevisionRecordView[]> {
  const app = await authorizeApp(em, caller, appId, 'read');
  const revisions = await em.find(AppRevision, { appId: app.id }, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 100 });
  return revisions.map((revision) => ({
    id: revision.id,
    status: revision.status,
    version: revision.version,
    changes: revision.changes,
    rejectionReason: revision.rejectionReason ?? null,
    createdAt: revision.createdAt.toISOString(),
    decidedAt: revision.decidedAt?.toISOString() ?? null,
  }));
}
