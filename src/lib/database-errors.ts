import { ConnectionException, DriverException } from '@mikro-orm/postgresql';

/**
 * Anything that means "the database is unreachable" rather than "this query is wrong". A pool this
 * process has closed (shutting down) is unreachable too: a request still running past the
 * shutdown's wait is told to come back, not that the server failed.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof ConnectionException) return true;
  if (error instanceof DriverException && error.cause && error.cause !== error) return isDatabaseUnavailable(error.cause);
  const message = error instanceof Error ? error.message : '';
  const code = (error as { code?: string } | undefined)?.code;
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P03', '08006', '08001'].includes(code ?? '') ||
    /connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|Connection terminated|connection error and is not queryable|Cannot use a pool after calling end/i.test(
      message,
    )
  );
}

/** An outage seen through the ORM: unlike `isDatabaseUnavailable`, never another service's refused connection (SMTP, a fetched URL). */
export const isDatabaseOutage = (error: unknown) => error instanceof DriverException && isDatabaseUnavailable(error);
