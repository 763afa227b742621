import type pg from 'pg';
import { createConnectionFailures, createConnectionGate } from '../lib/connection-wait.ts';

/**
 * Puts the connection-wait bound in front of a `pg` pool. The gate holds as many permits as the
 * pool has connections, so the pool itself never queues: its own `connectionTimeoutMillis` then
 * only ever times the opening of a connection (the database is unreachable), while waiting for a
 * busy pool is bounded by the gate (the service is overloaded).
 */
export function boundConnectionWait(pool: pg.Pool, permits: number, waitMs: number): void {
  const gate = createConnectionGate(permits, waitMs, pool);
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const failures = createConnectionFailures();
  const acquire = async (): Promise<pg.PoolClient> => {
    failures.throwIfRecent();
    const giveBack = await gate.acquire();
    try {
      failures.throwIfRecent();
      let client: pg.PoolClient;
      try {
        client = await connect();
        failures.connected();
      } catch (error) {
        failures.failed(error);
        throw error;
      }
      const release = client.release;
      client.release = (error?: Error | boolean) => {
        giveBack();
        return release.call(client, error);
      };
      return client;
    } catch (error) {
      giveBack();
      throw error;
    }
  };
  // pg calls `connect(callback)` itself (pool.query); Kysely and this codebase use the promise.
  pool.connect = ((callback?: (error: Error | undefined, client?: pg.PoolClient, done?: () => void) => void) => {
    const pending = acquire();
    if (!callback) return pending;
    pending.then(
      (client) => callback(undefined, client, () => client.release()),
      (error: Error) => callback(error),
    );
    return undefined;
  }) as typeof pool.connect;
}
