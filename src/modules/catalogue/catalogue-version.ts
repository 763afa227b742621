import type { EntityManager, EventSubscriber, TransactionEventArgs } from '@mikro-orm/postgresql';
import { executeNamed, namedSql } from '../../lib/named-sql.ts';
import type { SqlReader } from '../../lib/sql-reader.ts';
// Raw SQL here is the hot public read (D106): the version check every cached answer makes.

/**
 * The catalogue version: one number in PostgreSQL that every change the public catalogue shows
 * increments, in the change's own transaction, so it becomes visible exactly when the change does.
 * API processes poll it (a plain query, so it works through a transaction-pooling proxy and on a
 * replica) and drop the responses they cached under an older one.
 *
 * Called by the domain services: approval, suspension, relisting, featuring, revision approval,
 * developer suspension and reinstatement, developer profile edits, the counter roll-ups — and by
 * any other service that changes what the public sees (a support edit must call it too).
 * Call it last in the transaction: it holds the row until commit.
 */
export async function bumpCatalogueVersion(em: EntityManager): Promise<void> {
  await executeNamed(em, 'update catalogue_version set version = version + 1, changed_at = now()', {});
  if (em.isInTransaction()) bumpedIn.add(em);
  else notifyBumped();
}

/**
 * This process's own changes are served at once, not after the next poll: once a transaction that
 * bumped the version commits, the local listeners (the response caches' clocks) re-read it.
 */
const bumpedIn = new WeakSet<EntityManager>();
const listeners = new Set<() => void>();
const notifyBumped = () => {
  for (const listener of listeners) listener();
};

export function onCatalogueVersionBumped(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Registered with the ORM (`src/db/orm.ts`). */
export const catalogueVersionSubscriber: EventSubscriber = {
  afterTransactionCommit({ em }: TransactionEventArgs) {
    if (bumpedIn.delete(em as EntityManager)) notifyBumped();
  },
};

export async function readCatalogueVersion(reader: SqlReader): Promise<number> {
  const [row] = await reader.queryUrgent<{ version: string }>(namedSql('select version from catalogue_version', {}));
  return Number(row?.version ?? 0);
}
