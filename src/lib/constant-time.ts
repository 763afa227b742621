import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Compares a secret (a CSRF token, the metrics token) with what a client sent, in time that
 * depends on neither: both are first reduced to HMAC-SHA256 under a key made at start-up, so the
 * bytes compared are always 32 long and unknown to the client, whatever it sent (another length,
 * characters outside ASCII). A missing value, or an empty secret, matches nothing.
 */
const KEY = randomBytes(32);
const digest = (value: string) => createHmac('sha256', KEY).update(value).digest();

export function sameSecret(expected: string, given: string | null | undefined): boolean {
  if (expected === '' || given === null || given === undefined) return false;
  return timingSafeEqual(digest(given), digest(expected));
}
