import type { MikroORM } from '@mikro-orm/postgresql';
import { postgresAttemptReservations } from '../../http/attempt-reservations.ts';
import { ApiError } from '../../http/problem.ts';

/**
 * The token exchange takes no other credential, so its refusals are limited per client network
 * (an IPv6 /64), in PostgreSQL so every process shares the budget. Each exchange reserves an
 * attempt before its token is checked (at most the limit is checked per minute, whatever the
 * concurrency); a success gives it back, so only refusals use the budget up. Past the limit a token
 * is still checked when that costs nothing but a signature (keys this process holds), and a valid
 * one is served: junk from a shared address (CI runners share theirs) never refuses a valid
 * token. Anything else there is 429.
 */
export function createExchangeAttempts(orm: MikroORM, refusalsPerMinute: number) {
  const attempts = postgresAttemptReservations(orm, 'trusted-publishing-exchange', refusalsPerMinute);
  const isRefusal = (error: unknown) => error instanceof ApiError && error.status === 401;
  return async function limited<T>(network: string, exchange: (options: { heldKeysOnly: boolean }) => Promise<T>): Promise<T> {
    const reservation = await attempts.reserve([`address:${network}`]);
    if (!reservation.reserved) {
      try {
        return await exchange({ heldKeysOnly: true });
      } catch (error) {
        if (!isRefusal(error)) throw error;
        const wait = String(reservation.retryAfterSeconds);
        throw new ApiError(429, 'RATE_LIMITED', `Too many refused token exchanges from this address; wait ${wait} s and try again`, undefined, {
          'retry-after': wait,
          'ratelimit-limit': String(refusalsPerMinute),
          'ratelimit-remaining': '0',
          'ratelimit-reset': wait,
        });
      }
    }
    try {
      const result = await exchange({ heldKeysOnly: false });
      await reservation.release();
      return result;
    } catch (error) {
      // Only a refused token keeps its attempt; the service failing is not the client's doing.
      if (!isRefusal(error)) await reservation.release();
      throw error;
    }
  };
}
