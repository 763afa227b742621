import pg from 'pg';
import type { CatalogueReaders, SqlReader } from '../lib/sql-reader.ts';
import type { Logger } from '../lib/logger.ts';
import { boundConnectionWait } from './bounded-pool.ts';
import { CONNECT_TIMEOUT_MS } from './orm.ts';

/**
 * Plain `pg` pools for the public catalogue's reads: one on the primary, one per streaming replica
 * (`DATABASE_REPLICA_URLS`). Hot reads skip the ORM (entity hydration and its query layer cost
 * several times a raw query here), and a pool of their own keeps a burst of catalogue traffic from
 * starving the developer API's transactions.
 */
export interface ReadPoolOptions {
  /** Connections per server. */
  max: number;
  /** How long a read waits for a free connection before 503 OVERLOADED. */
  waitMs: number;
}

function reader(name: string, url: string, options: ReadPoolOptions, logger: Logger): { reader: SqlReader; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: 10_000,
    application_name: `marketplace-catalogue-${name}`,
  });
  // A connection the server dropped is discarded by the pool; an unhandled 'error' would end the process.
  pool.on('error', (error) => logger.warn('catalogue pool connection error', { pool: name, error: error.message }));
  boundConnectionWait(pool, options.max, options.waitMs);
  return {
    pool,
    reader: {
      name,
      async query<Row>(statement: { text: string; values: unknown[] }) {
        const result = await pool.query(statement.text, statement.values);
        return result.rows as Row[];
      },
    },
  };
}

export function createCatalogueReaders(primaryUrl: string, replicaUrls: string[], options: ReadPoolOptions, logger: Logger): CatalogueReaders {
  // With replicas the primary serves none of these reads: it keeps its connections for writes.
  const targets =
    replicaUrls.length > 0
      ? replicaUrls.map((url, i) => reader(`replica-${i + 1}`, url, options, logger))
      : [reader('primary', primaryUrl, options, logger)];
  let turn = 0;
  return {
    all: targets.map((target) => target.reader),
    next() {
      turn = (turn + 1) % targets.length;
      return targets[turn]!.reader;
    },
    async close() {
      await Promise.all(targets.map((target) => target.pool.end().catch(() => {})));
    },
  };
}
