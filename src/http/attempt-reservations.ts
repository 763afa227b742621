import type { MikroORM } from '@mikro-orm/postgresql';
import { executeNamed } from '../lib/named-sql.ts';

/**
 * Attempts reserved in PostgreSQL before the check they guard (a password, a code), shared by
 * every process: a reservation takes one unit from each of its keys' budgets, all or none, and
 * is refused once any is spent. A budget counts this one-minute window and the one before, so
 * no 60 seconds ever hold more than `limit` units (a fixed window alone would allow twice that
 * across its edge). A reservation that turns out to be a success is released; a failure keeps
 * its unit. So at most `limit` checks run per key and minute whatever the concurrency, and only
 * failures use a budget up. A limit of 0 disables it.
 */
export type AttemptReservation = { reserved: true; release(): Promise<void> } | { reserved: false; retryAfterSeconds: number };

const WINDOW_MS = 60_000;

export function postgresAttemptReservations(orm: MikroORM, name: string, limit: number) {
  return {
    async reserve(keys: string[]): Promise<AttemptReservation> {
      if (limit <= 0) return { reserved: true, release: async () => {} };
      const now = Date.now();
      const windowStart = new Date(now - (now % WINDOW_MS));
      const previousStart = new Date(windowStart.getTime() - WINDOW_MS);
      // Sorted, so two reservations sharing keys lock their rows in the same order and never deadlock.
      const buckets = [...new Set(keys)].sort().map((key) => `${name}:${key}`);
      const reserved = await orm.em
        .fork()
        .transactional(async (tx) => {
          for (const bucket of buckets) {
            // Atomic claim: the conditional upsert adds one only while this window and the previous stay under the limit.
            const [row] = await executeNamed<{ hits: number }>(
              tx,
              `with previous as (
               select coalesce(sum(hits), 0)::int as hits from rate_limit_counters where bucket = :bucket and window_start = :previousStart
             )
             insert into rate_limit_counters as counter (bucket, window_start, hits)
             select :bucket, :windowStart, 1 from previous where previous.hits < :limit
             on conflict (bucket, window_start) do update set hits = counter.hits + 1
             where counter.hits + (select hits from previous) < :limit
             returning hits`,
              { bucket, previousStart, windowStart, limit },
            );
            if (!row) throw new BudgetSpent();
          }
          return true;
        })
        .catch((error: unknown) => {
          if (error instanceof BudgetSpent) return false;
          throw error;
        });
      // Units taken in this window still count through the next one: the end of that is a safe time to try again.
      if (!reserved)
        return { reserved: false, retryAfterSeconds: Math.max(1, Math.ceil((windowStart.getTime() + 2 * WINDOW_MS - Date.now()) / 1000)) };
      return {
        reserved: true,
        async release() {
          // Batch work on the reserved rows: give the unit back to the window it was taken from.
          await executeNamed(
            orm.em.fork(),
            `update rate_limit_counters set hits = hits - 1
             where bucket = any(:buckets::text[]) and window_start = :windowStart and hits > 0`,
            { buckets, windowStart },
          );
        },
      };
    },
  };
}

/** Rolls the reservation's transaction back when one of its budgets is spent. */
class BudgetSpent extends Error {}
