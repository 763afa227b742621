import { SQL } from 'bun';
import type { CatalogueReaders, SqlReader } from '../lib/sql-reader.ts';
import type { Logger } from '../lib/logger.ts';
import { createConnectionFailures, createConnectionGate } from '../lib/connection-wait.ts';
import { CONNECT_TIMEOUT_MS } from './orm.ts';

/**
 * Bun's own PostgreSQL client for the public catalogue's reads: one pool on the primary, one per
 * streaming replica (`DATABASE_REPLICA_URLS`). Hot reads skip the ORM (entity hydration and its
 * query layer cost several times a raw query here), and a pool of their own keeps a burst of
 * catalogue traffic from starving the developer API's transactions. Bun's client rather than `pg`
 * (D200): it reads a search's page of rows in about half the CPU, which is what a cold search
 * costs most after its ranking. It prepares each statement once per connection and plans it once
 * (`force_generic_plan`, D188).
 */
export interface ReadPoolOptions {
  /** Connections per server. */
  max: number;
  /** How long a read waits for a free connection before 503 OVERLOADED. */
  waitMs: number;
  /** How long one catalogue statement may run before PostgreSQL cancels it. */
  statementTimeoutMs: number;
}

/**
 * A failed read as the rest of the service reads database errors: `code` is the SQLSTATE for the
 * server's errors (57014, a statement timeout…) and 08006 (connection failure) for the client's
 * connection errors, so the HTTP layer answers them as it answers `pg`'s (503, not 500).
 */
export class CatalogueReadError extends Error {
  override name = 'CatalogueReadError';
  constructor(
    message: string,
    readonly code: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

const CONNECTION_FAILURE = '08006';

function readError(error: unknown): CatalogueReadError {
  const { code, errno, message } = error as { code?: string; errno?: string; message?: string };
  const sqlState = typeof errno === 'string' && /^[0-9A-Z]{5}$/.test(errno) ? errno : undefined;
  const connectionLost = !sqlState && typeof code === 'string' && /^ERR_POSTGRES_(CONNECTION|IDLE|LIFETIME|TLS)/.test(code);
  return new CatalogueReadError(message ?? String(error), sqlState ?? (connectionLost ? CONNECTION_FAILURE : (code ?? 'UNKNOWN')), error);
}

/**
 * A pool whose reads wait at most `waitMs` for a connection (the gate holds as many permits as it
 * has connections, so the client never queues), and which, for a moment after a connection failed,
 * fails reads at once instead of queueing them behind connection attempts that will fail too.
 */
function boundedPool(name: string, url: string, max: number, options: ReadPoolOptions, logger: Logger) {
  const sql = new SQL({
    url,
    max,
    idleTimeout: 30,
    connectionTimeout: CONNECT_TIMEOUT_MS / 1000,
    connection: {
      statement_timeout: String(options.statementTimeoutMs),
      plan_cache_mode: 'force_generic_plan',
      application_name: `marketplace-catalogue-${name}`,
    },
  });
  const gate = createConnectionGate(max, options.waitMs);
  const failures = createConnectionFailures();
  return {
    async query<Row>(statement: { text: string; values: unknown[] }): Promise<Row[]> {
      failures.throwIfRecent();
      const giveBack = await gate.acquire();
      try {
        failures.throwIfRecent();
        return (await sql.unsafe(statement.text, statement.values)) as Row[];
      } catch (error) {
        if (error instanceof CatalogueReadError) throw error;
        const failure = readError(error);
        if (failure.code === CONNECTION_FAILURE) {
          failures.failed(failure);
          logger.warn('catalogue pool connection error', { pool: name, error: failure.message });
        }
        throw failure;
      } finally {
        giveBack();
      }
    },
    close: () => sql.close(),
  };
}

function reader(name: string, url: string, options: ReadPoolOptions, logger: Logger): { reader: SqlReader; pools: { close(): Promise<void> }[] } {
  const pool = boundedPool(name, url, options.max, options, logger);
  // The version check runs every few hundred ms on its own connection, never behind a slow search.
  const urgent = boundedPool(name, url, 1, options, logger);
  return {
    pools: [pool, urgent],
    reader: { name, query: (statement) => pool.query(statement), queryUrgent: (statement) => urgent.query(statement) },
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
      await Promise.all(targets.flatMap((target) => target.pools.map((pool) => pool.close().catch(() => {}))));
    },
  };
}
