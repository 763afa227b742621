import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Revision versions never repeat for an app: each one is claimed from the app's counter
 * (`apps.last_revision_version`), so a decision naming the version a reviewer saw cannot land on a
 * later revision, or on the same one after it changed. Call with the app's row locked.
 */
export async function claimRevisionVersion(tx: EntityManager, appId: string): Promise<number> {
  // An atomic claim on the counter alone: the live listing (and its public updatedAt) stays untouched.
  const [row] = await tx.execute<{ version: number }[]>(
    'update apps set last_revision_version = last_revision_version + 1 where id = ? returning last_revision_version as version',
    [appId],
  );
  return row!.version;
}
