import type { EntityManager, EventSubscriber, TransactionEventArgs } from '@mikro-orm/postgresql';
import { executeNamed, namedSql } from '../../lib/named-sql.ts';
import type { SqlReader } from '../../lib/sql-reader.ts';
import type { VersionClock } from '../../lib/version-clock.ts';
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
/**
 * Held weakly: a clock is told for as long as its caches live, and a closed app's (tests build
 * one per file) is not kept, with everything it reads through, by this module for good.
 */
const clocks = new Set<WeakRef<Pick<VersionClock, 'expire'>>>();
const notifyBumped = () => {
  for (const ref of clocks) {
    const clock = ref.deref();
    if (clock) clock.expire();
    else clocks.delete(ref);
  }
};

/** `clock` expires whenever this process commits a bump, until it is collected. */
export function expireOnCatalogueVersionBump(clock: Pick<VersionClock, 'expire'>): void {
  clocks.add(new WeakRef(clock));
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
