import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';

/**
 * Revision versions never repeat for an app: each one is claimed from the app's counter
 * (`apps.last_revision_version`), so a decision naming the version a reviewer saw cannot land on a
 * later revision, or on the same one after it changed. Call with the app's row locked.
 */
export async function claimRevisionVersion(tx: EntityManager, appId: string): Promise<number> {
  // An atomic claim on the counter alone: the live listing (and its public updatedAt) stays untouched.
  const [row] = await executeNamed<{ version: number }>(
    tx,
    'update apps set last_revision_version = last_revision_version + 1 where id = :appId returning last_revision_version as version',
    { appId },
  );
  return row!.version;
}
