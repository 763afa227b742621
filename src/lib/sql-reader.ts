import type { CompiledSql } from './named-sql.ts';

/**
 * Where public catalogue reads go: the primary, or one of its streaming replicas. Reads that need
 * to see the caller's own writes (developer API, console, key checks) never come through here.
 */
export interface SqlReader {
  /** `primary`, or `replica-N`: which server answered, for logs and tests. */
  readonly name: string;
  query<Row>(statement: CompiledSql): Promise<Row[]>;
  /** For a tiny query that must not queue behind slow ones (the version check): a connection of its own. */
  queryUrgent<Row>(statement: CompiledSql): Promise<Row[]>;
  /**
   * The same server for reads no request waits for (a cached answer replaced in the background):
   * its statements queue behind every request's and take at most half the pool.
   */
  readonly inBackground: SqlReader;
}

export interface CatalogueReaders {
  /** The next server to read the public catalogue from: the replicas in turn, else the primary. */
  next(): SqlReader;
  readonly all: readonly SqlReader[];
  close(): Promise<void>;
}
