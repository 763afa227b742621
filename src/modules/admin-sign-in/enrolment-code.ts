import { createHash } from 'node:crypto';

/**
 * The one-time code a second-factor reset issues: shown once to the owner who reset it, passed to
 * the admin by them, and needed (with the password) for the next enrolment, so whoever holds only
 * the password cannot enrol an authenticator of their own. 12 base32 characters (60 bits), grouped
 * for reading aloud; only its SHA-256 is stored, and it lapses after `ENROLMENT_CODE_HOURS`.
 */
export const ENROLMENT_CODE_HOURS = 72;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function newEnrolmentCode(): string {
  // 256 is a multiple of 32, so every character is equally likely.
  const characters = [...crypto.getRandomValues(new Uint8Array(12))].map((byte) => ALPHABET[byte % 32]).join('');
  return characters.replace(/(.{4})(?=.)/g, '$1-');
}

/** Case, spaces and dashes do not matter when the admin types it. */
export const hashEnrolmentCode = (code: string) =>
  createHash('sha256')
    .update(code.toUpperCase().replace(/[^A-Z2-7]/g, ''))
    .digest('hex');
