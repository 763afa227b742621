import type { MikroORM } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import pg from 'pg';
import type { Config, Role } from './config.ts';
import type { AppContext } from './app-context.ts';
import type { Logger } from './lib/logger.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.ts';
import { createOrm } from './db/orm.ts';
import { usePasswordHashCost } from './lib/password-hashing.ts';
import { assertSchemaCurrent, migrate } from './db/migrate.ts';
import { createTokenVerifier } from './modules/identity/platform-identity.ts';
import { createBoss, declareQueues } from '../jobs/queues.ts';
import { queues } from '../jobs/registry.ts';
import { startWorkers } from '../jobs/worker.ts';
import { createJobQueue } from './lib/job-queue.ts';
import { createMailer } from './modules/notifications/mailer.ts';
import { createCatalogueReaders } from './db/read-pools.ts';
import { createSqlPool, type SqlPool } from './db/sql-pool.ts';
import { INSTALL_BATCHES_AT_ONCE } from './modules/installs/install-batcher.ts';
import type { CatalogueReaders } from './lib/sql-reader.ts';
import { usePublicUrl } from './lib/public-url.ts';
import { useRollUpDelay } from './modules/stats/stats.service.ts';
import { createInFlight } from './lib/in-flight.ts';
import { namedSql } from './lib/named-sql.ts';

/**
 * Everything a process holds open: the database (embedded or not), the ORM and pg-boss.
 * The server, the worker role and the CLI all start through here, so they reach the same
 * database the same way.
 */
export interface Runtime {
  ctx: AppContext;
  databaseUrl: string;
  /** Migrations this process applied on start (empty when the schema was current). */
  appliedMigrations: string[];
  stop(): Promise<void>;
}

export const EMBEDDED_DATABASE = 'marketplace';

/** How long the shutdown waits for running requests (as for running jobs) before it closes the pools. */
export const DRAIN_TIMEOUT_MS = 10_000;

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = namedSql('select 1 from pg_database where datname = :name', { name });
    const { rowCount } = await client.query(exists.text, exists.values);
    if (!rowCount) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
}

export interface RuntimeOptions {
  role: Role;
  /** The CLI's `db:migrate` forces it; otherwise only non-production processes migrate on start. */
  migrate?: boolean;
  /** Whether to start pg-boss at all (a one-shot CLI command that enqueues nothing does not). */
  jobs?: boolean;
}

export async function startRuntime(config: Config, logger: Logger, options: RuntimeOptions): Promise<Runtime> {
  let embedded: EmbeddedDatabase | undefined;
  let orm: MikroORM | undefined;
  let boss: PgBoss | undefined;
  let catalogueReaders: CatalogueReaders | undefined;
  let installWriter: SqlPool | undefined;
  const requests = createInFlight();
  const stop = async () => {
    // Jobs and requests finish side by side, and only then are the pools they read from closed: a
    // stopped server no longer waits for a request whose client hung up, but that request still runs.
    await Promise.all([
      boss?.stop({ graceful: true, timeout: DRAIN_TIMEOUT_MS }).catch((error) => logger.warn('pg-boss stop failed', { error })),
      requests.drained(DRAIN_TIMEOUT_MS).then((drained) => {
        if (!drained) logger.warn('requests still running when the pools close', { requests: requests.count });
      }),
    ]);
    await Promise.all([catalogueReaders?.close(), installWriter?.close().catch(() => {})]);
    await orm?.close().catch((error) => logger.warn('ORM close failed', { error }));
    await embedded?.stop().catch((error) => logger.warn('embedded PostgreSQL stop failed', { error }));
  };
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres(config.dataDir, logger);
      await ensureDatabase(embedded.url(), EMBEDDED_DATABASE);
      databaseUrl = embedded.url(EMBEDDED_DATABASE);
    }
    const pools = config.database;
    usePublicUrl(config.publicUrl);
    useRollUpDelay(config.statsRollUpDelaySeconds);
    usePasswordHashCost(config.passwordHashCost);
    orm = await createOrm(databaseUrl, logger, pools);
    const production = config.env === 'production';
    let appliedMigrations: string[] = [];
    if (options.migrate ?? !production) {
      appliedMigrations = await migrate(orm);
      if (appliedMigrations.length) logger.info('migrations applied', { applied: appliedMigrations });
    } else {
      await assertSchemaCurrent(orm);
    }

    boss = createBoss(databaseUrl, logger, {
      supervise: options.role !== 'api',
      migrate: options.migrate ?? !production,
      poolMax: pools.jobsPoolMax,
      superviseSeconds: config.jobsSuperviseSeconds,
    });
    if (options.jobs ?? true) {
      await boss.start();
      await declareQueues(boss, queues, config.retention, logger);
    }

    const ctx: AppContext = {
      config,
      orm,
      boss,
      jobs: createJobQueue(boss),
      verifier: createTokenVerifier(config.oauth, config.dataDir, logger),
      mailer: createMailer(config.mail),
      logger,
      requests,
      catalogueReaders: (catalogueReaders = createCatalogueReaders(
        databaseUrl,
        pools.replicaUrls,
        { max: pools.cataloguePoolMax, waitMs: pools.connectionWaitMs, statementTimeoutMs: pools.statementTimeoutMs },
        logger,
      )),
      installWriter: (installWriter = createSqlPool(
        'installs',
        databaseUrl,
        { max: INSTALL_BATCHES_AT_ONCE, waitMs: pools.connectionWaitMs, statementTimeoutMs: pools.statementTimeoutMs },
        logger,
      )),
    };
    if (options.role !== 'api' && (options.jobs ?? true)) await startWorkers(ctx);
    return { ctx, databaseUrl, appliedMigrations, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
