import type { CompiledSql } from './named-sql.ts';

/**
 * A transaction on Bun's PostgreSQL client (`db/sql-pool.ts`), for installs, the hottest write
 * (D214). `executeSql` is the shape pg-boss takes as `db`: a job sent through it commits or rolls
 * back with the transaction.
 */
export interface SqlTransaction {
  query<Row>(statement: CompiledSql): Promise<Row[]>;
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

export interface SqlWriter {
  /** One statement on its own: committed when it returns. */
  query<Row>(statement: CompiledSql): Promise<Row[]>;
  /** Runs `work` in a transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T>;
}
