import pg from 'pg';
import type { CatalogueReaders, SqlReader } from '../lib/sql-reader.ts';
import type { Logger } from '../lib/logger.ts';
import { boundConnectionWait } from './bounded-pool.ts';
import { reportDroppedConnections } from './dropped-connections.ts';
import { CONNECT_TIMEOUT_MS } from './orm.ts';

/**
 * Plain `pg` pools for the public catalogue's reads: one on the primary, one per streaming replica
 * (`DATABASE_REPLICA_URLS`). Hot reads skip the ORM (entity hydration and its query layer cost
 * several times a raw query here), and a pool of their own keeps a burst of catalogue traffic from
 * starving the developer API's transactions.
 */
const statementName = (text: string) => `catalogue-${Bun.hash(text).toString(36)}`;

export interface ReadPoolOptions {
  /** Connections per server. */
  max: number;
  /** How long a read waits for a free connection before 503 OVERLOADED. */
  waitMs: number;
  /** How long one catalogue statement may run before PostgreSQL cancels it. */
  statementTimeoutMs: number;
}

function boundedPool(name: string, url: string, max: number, options: ReadPoolOptions, logger: Logger): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: options.statementTimeoutMs,
    application_name: `marketplace-catalogue-${name}`,
    // Plan each named statement once per connection (D188): PostgreSQL's own choice re-planned a
    // search for every query, and planning it cost half as much as running it.
    options: '-c plan_cache_mode=force_generic_plan',
  });
  reportDroppedConnections(pool, (error) => logger.warn('catalogue pool connection error', { pool: name, error: error.message }));
  boundConnectionWait(pool, max, options.waitMs);
  return pool;
}

function reader(name: string, url: string, options: ReadPoolOptions, logger: Logger): { reader: SqlReader; pools: pg.Pool[] } {
  const pool = boundedPool(name, url, options.max, options, logger);
  // The version check runs every few hundred ms on its own connection, never behind a slow search.
  const urgent = boundedPool(name, url, 1, options, logger);
  // Named, so each connection parses and plans a statement once and then only executes it: the
  // catalogue's statements are a small fixed set, and planning them cost more than running most.
  const run = async <Row>(on: pg.Pool, statement: { text: string; values: unknown[] }) =>
    (await on.query({ name: statementName(statement.text), text: statement.text, values: statement.values })).rows as Row[];
  return {
    pools: [pool, urgent],
    reader: { name, query: (statement) => run(pool, statement), queryUrgent: (statement) => run(urgent, statement) },
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
      await Promise.all(targets.flatMap((target) => target.pools.map((pool) => pool.end().catch(() => {}))));
    },
  };
}
