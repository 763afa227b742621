import type { ApiKeySecret } from '../../config.ts';

/**
 * API key format: `mk_` + 32 random base62 characters + 6 base62 characters of the CRC32 of
 * the random part. The checksum lets a typo or a truncated key be refused without a
 * database round trip; the randomness (~190 bits) is what makes the key a secret.
 */
export const KEY_PREFIX = 'mk_';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

const checksum = (body: string) => base62(Bun.hash.crc32(body) >>> 0, CHECKSUM_LENGTH);

export function generateKey(): string {
  // 248 is the largest multiple of 62 below 256: rejecting bytes above it keeps every character equally likely.
  let body = '';
  while (body.length < BODY_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(BODY_LENGTH))) {
      if (byte < 248 && body.length < BODY_LENGTH) body += ALPHABET[byte % 62];
    }
  }
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

/** True when the string has the key's shape and a matching checksum. */
export function isWellFormedKey(candidate: string): boolean {
  if (!KEY_PATTERN.test(candidate)) return false;
  const body = candidate.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return candidate.slice(KEY_PREFIX.length + BODY_LENGTH) === checksum(body);
}

export const looksLikeApiKey = (token: string) => token.startsWith(KEY_PREFIX);

export function hashKey(key: string, secret: ApiKeySecret): string {
  return new Bun.CryptoHasher('sha256', secret.secret).update(key).digest('hex');
}

export const maskKey = (last4: string) => `${KEY_PREFIX}…${last4}`;
