/**
 * When a failed delivery is tried again: exponential backoff from about 25 s (×4 each time,
 * capped at 8 h) with up to 20 % jitter so a receiver that was down is not hit by every
 * delivery at once. 9 attempts span at least 25.5 h (91,725 s before jitter) — the contract
 * asks for "at least 24 h" — and then the delivery is marked failed.
 */
export const MAX_ATTEMPTS = 9;
const FIRST_DELAY_SECONDS = 25;
const MAX_DELAY_SECONDS = 8 * 3600;
const JITTER = 0.2;

/** Seconds to wait after failed attempt `attempt` (1-based); `random` in [0, 1). */
export function retryDelaySeconds(attempt: number, random = Math.random()): number {
  const base = Math.min(FIRST_DELAY_SECONDS * 4 ** (attempt - 1), MAX_DELAY_SECONDS);
  return Math.round(base * (1 + JITTER * random));
}
