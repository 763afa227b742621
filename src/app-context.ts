import type { MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import type { Config } from './config.ts';
import type { Logger } from './lib/logger.ts';
import type { TokenVerifier } from './modules/identity/platform-identity.ts';
import type { JobQueue } from './lib/job-queue.ts';
import type { Mailer } from './modules/notifications/mailer.ts';
import type { CatalogueReaders } from './lib/sql-reader.ts';
import type { SqlWriter } from './lib/sql-writer.ts';
import type { InFlight } from './lib/in-flight.ts';

/** What the HTTP layer and the workers are built from; tests assemble one against their own database. */
export interface AppContext {
  config: Config;
  orm: MikroORM;
  boss: PgBoss;
  /** Transactional enqueue: use it with the EntityManager of the change the job follows. */
  jobs: JobQueue;
  verifier: TokenVerifier;
  /** SMTP when `SMTP_URL` is set, else the dev outbox; used by the mail job. */
  mailer: Mailer;
  logger: Logger;
  /** The public catalogue's read pools: the replicas when there are any, else the primary. */
  catalogueReaders: CatalogueReaders;
  /** Installs' transactions, on Bun's client on the primary (D214). */
  installWriter: SqlWriter;
  /** The HTTP requests being handled: the shutdown lets them finish before it closes the pools. */
  requests: InFlight;
}
