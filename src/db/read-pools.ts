import type { CatalogueReaders, SqlReader } from '../lib/sql-reader.ts';
import type { Logger } from '../lib/logger.ts';
import { CONNECTION_FAILURE, createSqlPool, PooledSqlError, type SqlPoolOptions } from './sql-pool.ts';

/**
 * Bun's own PostgreSQL client for the public catalogue's reads: one pool on the primary, one per
 * streaming replica (`DATABASE_REPLICA_URLS`). Hot reads skip the ORM (entity hydration and its
 * query layer cost several times a raw query here), and a pool of their own keeps a burst of
 * catalogue traffic from starving the developer API's transactions. Bun's client rather than `pg`
 * (D200): it reads a search's page of rows in about half the CPU, which is what a cold search
 * costs most after its ranking. It prepares each statement once per connection and plans it once
 * (`force_generic_plan`, D188). `max` is per server.
 */
export type ReadPoolOptions = Omit<SqlPoolOptions, 'settings'>;

function reader(name: string, url: string, options: ReadPoolOptions, logger: Logger): { reader: SqlReader; pools: { close(): Promise<void> }[] } {
  const settings = { plan_cache_mode: 'force_generic_plan' };
  const pool = createSqlPool(`catalogue-${name}`, url, { ...options, settings }, logger);
  // The version check runs every few hundred ms on its own connection, never behind a slow search.
  const urgent = createSqlPool(`catalogue-${name}`, url, { ...options, max: 1, settings }, logger);
  const queryUrgent: SqlReader['queryUrgent'] = (statement) => urgent.query(statement);
  const inBackground: SqlReader = {
    name,
    query: (statement) => pool.query(statement, true),
    queryUrgent,
    get inBackground() {
      return inBackground;
    },
  };
  return {
    pools: [pool, urgent],
    reader: { name, query: (statement) => pool.query(statement), queryUrgent, inBackground },
  };
}

/** What the readers give once closed: every read fails as an outage does. */
const CLOSED: SqlReader = {
  name: 'closed',
  query: () => Promise.reject(new PooledSqlError('the catalogue readers are closed', CONNECTION_FAILURE, undefined)),
  queryUrgent: (statement) => CLOSED.query(statement),
  get inBackground() {
    return CLOSED;
  },
};

export function createCatalogueReaders(primaryUrl: string, replicaUrls: string[], options: ReadPoolOptions, logger: Logger): CatalogueReaders {
  // With replicas the primary serves none of these reads: it keeps its connections for writes.
  const targets =
    replicaUrls.length > 0
      ? replicaUrls.map((url, i) => reader(`replica-${i + 1}`, url, options, logger))
      : [reader('primary', primaryUrl, options, logger)];
  let turn = 0;
  let closed = false;
  return {
    all: targets.map((target) => target.reader),
    next() {
      // Background work (the search index renewing its reading) may still read once the pools are gone: told at once, nothing logged.
      if (closed) return CLOSED;
      turn = (turn + 1) % targets.length;
      return targets[turn]!.reader;
    },
    async close() {
      closed = true;
      await Promise.all(targets.flatMap((target) => target.pools.map((pool) => pool.close().catch(() => {}))));
    },
  };
}
