import type { MikroORM } from '@mikro-orm/postgresql';
import { executeNamed } from '../lib/named-sql.ts';
import { migrations } from './migrations/index.ts';

/** Any constant works; it only has to be the same for every process that migrates. */
const MIGRATION_LOCK = 7_242_001;

/** Applies pending migrations under an advisory lock, so concurrent releases take turns. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  // The lock lives in its own transaction for as long as the migrator (on another connection) runs.
  return orm.em.fork().transactional(async (em) => {
    await executeNamed(em, 'select pg_advisory_xact_lock(:lock)', { lock: MIGRATION_LOCK });
    const applied = await orm.migrator.up();
    return applied.map((m) => m.name);
  });
}

export async function pendingMigrations(orm: MikroORM): Promise<string[]> {
  const pending = await orm.migrator.getPending();
  return pending.map((m) => m.name);
}

export class SchemaBehindError extends Error {
  override name = 'SchemaBehindError';
}

/** A production process never migrates: it refuses to run against an older schema. */
export async function assertSchemaCurrent(orm: MikroORM): Promise<void> {
  const pending = await pendingMigrations(orm);
  if (pending.length > 0) {
    throw new SchemaBehindError(`The database schema is behind this build (pending: ${pending.join(', ')}). Run "bun run db:migrate" first.`);
  }
}

export const knownMigrations = () => migrations.map((m) => m.name);
