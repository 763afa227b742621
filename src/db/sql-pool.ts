import { SQL } from 'bun';
import { fromBunSql } from 'pg-boss';
import type { Logger } from '../lib/logger.ts';
import type { CompiledSql } from '../lib/named-sql.ts';
import type { SqlTransaction } from '../lib/sql-writer.ts';
import { createConnectionFailures, createConnectionGate } from '../lib/connection-wait.ts';
import { CONNECT_TIMEOUT_MS } from './orm.ts';

/**
 * A pool of Bun's own PostgreSQL client, for the service's hottest statements: the public
 * catalogue's reads (D200) and installs (D214). Bun's client answers a statement in a fraction of
 * the CPU that `pg` under the ORM takes here (`pg` writes each protocol message through a Node
 * stream of Bun's); entity hydration and the unit of work have nothing to do for these statements.
 */
export interface SqlPoolOptions {
  /** Connections in the pool. */
  max: number;
  /** How long a statement waits for a free connection before 503 OVERLOADED. */
  waitMs: number;
  /** How long one statement may run before PostgreSQL cancels it. */
  statementTimeoutMs: number;
  /** Further settings for each connection. */
  settings?: Record<string, string>;
}

/**
 * A failed statement as the rest of the service reads database errors: `code` is the SQLSTATE for
 * the server's errors (57014, a statement timeout…) and 08006 (connection failure) for the client's
 * connection errors, so the HTTP layer answers them as it answers `pg`'s (503, not 500).
 */
export class PooledSqlError extends Error {
  override name = 'PooledSqlError';
  constructor(
    message: string,
    readonly code: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}

/** The SQLSTATE of a lost or refused connection: an outage (503), not an error of the statement. */
export const CONNECTION_FAILURE = '08006';

function pooledSqlError(error: unknown): PooledSqlError {
  const { code, errno, message } = error as { code?: string; errno?: string; message?: string };
  const sqlState = typeof errno === 'string' && /^[0-9A-Z]{5}$/.test(errno) ? errno : undefined;
  const connectionLost = !sqlState && typeof code === 'string' && /^ERR_POSTGRES_(CONNECTION|IDLE|LIFETIME|TLS)/.test(code);
  return new PooledSqlError(message ?? String(error), sqlState ?? (connectionLost ? CONNECTION_FAILURE : (code ?? 'UNKNOWN')), error);
}

/**
 * A pool whose statements and transactions wait at most `waitMs` for a connection (the gate holds
 * as many permits as it has connections, so the client never queues), and which, for a moment
 * after a connection failed, fails at once instead of queueing behind connection attempts that will
 * fail too. Errors of the caller's own (a transaction's domain error) pass through as they are.
 */
export function createSqlPool(name: string, url: string, options: SqlPoolOptions, logger: Logger) {
  const sql = new SQL({
    url,
    max: options.max,
    idleTimeout: 30,
    connectionTimeout: CONNECT_TIMEOUT_MS / 1000,
    connection: { statement_timeout: String(options.statementTimeoutMs), application_name: `marketplace-${name}`, ...options.settings },
  });
  const gate = createConnectionGate(options.max, options.waitMs);
  const failures = createConnectionFailures();
  const guarded = async <T>(run: () => Promise<T>, background = false): Promise<T> => {
    failures.throwIfRecent();
    const giveBack = await gate.acquire(background);
    try {
      failures.throwIfRecent();
      return await run();
    } catch (error) {
      if (!(error instanceof SQL.SQLError)) throw error;
      const failure = pooledSqlError(error);
      if (failure.code === CONNECTION_FAILURE) {
        failures.failed(failure);
        logger.warn('SQL pool connection error', { pool: name, error: failure.message });
      }
      throw failure;
    } finally {
      giveBack();
    }
  };
  return {
    /** `background`: no request waits for it, so it yields the pool to those that do (`ConnectionGate`). */
    query: <Row>(statement: CompiledSql, background = false): Promise<Row[]> =>
      guarded(async () => (await sql.unsafe(statement.text, statement.values)) as Row[], background),
    /** Runs `work` in a transaction: committed when it returns, rolled back when it throws. */
    transaction: <T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> =>
      guarded(() =>
        sql.begin((tx) => {
          // pg-boss's own adapter for Bun's client, so a job sent through the transaction commits with it.
          const jobs = fromBunSql(tx);
          return work({
            query: async <Row>(statement: CompiledSql) => (await tx.unsafe(statement.text, statement.values)) as Row[],
            executeSql: (text, values) => jobs.executeSql(text, values),
          });
        }),
      ),
    close: () => sql.close(),
  };
}

export type SqlPool = ReturnType<typeof createSqlPool>;
