import type pg from 'pg';

/**
 * A connection the server drops (a restart, `pg_terminate_backend`) makes its client emit 'error'.
 * pg-pool listens only while a client is idle or running one of `pool.query`'s statements; a
 * client between those has no listener, and an unheard 'error' is an uncaught exception. Every
 * client gets a listener of its own for its whole life; its next statement fails (503) and the
 * pool discards it.
 */
export function reportDroppedConnections(pool: pg.Pool, report: (error: Error) => void): void {
  pool.on('connect', (client) => client.on('error', report));
  pool.on('error', report);
}
