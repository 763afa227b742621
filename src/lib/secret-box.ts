import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptionKey } from '../config.ts';

/**
 * Secrets the service must be able to read back (webhook signing secrets), sealed with
 * AES-256-GCM under a key from configuration. The stored form names its key
 * (`v1.<keyId>.<base64 iv|ciphertext|tag>`), so keys can be rotated: the first key seals, every
 * listed key opens. `context` (e.g. the owning row's id) is bound as associated data, so a sealed
 * value copied into another row does not open there.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function seal(keys: EncryptionKey[], plaintext: string, context: string): string {
  const [current] = keys;
  if (!current) throw new Error('No encryption key configured');
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', current.key, iv);
  cipher.setAAD(Buffer.from(context));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1.${current.id}.${Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64')}`;
}

/** Throws when the key is unknown or the value was tampered with: never returns a wrong secret. */
export function open(keys: EncryptionKey[], sealed: string, context: string): string {
  const [version, keyId, encoded] = sealed.split('.');
  const key = keys.find((candidate) => candidate.id === keyId);
  if (version !== 'v1' || !key || !encoded) throw new Error(`Cannot open a value sealed under key "${keyId}": not configured`);
  const bytes = Buffer.from(encoded, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key.key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
}

/** Whether a stored value is sealed at all (values written before a secret was sealed are not). */
export const isSealed = (stored: string) => stored.startsWith('v1.');

/** Whether a sealed value is under the key that seals now, so a rotation has nothing left to do for it. */
export const sealedUnderCurrentKey = (keys: EncryptionKey[], sealed: string) => sealed.startsWith(`v1.${keys[0]?.id}.`);

/** A `like` pattern for values sealed under the current key: rows not matching it still need resealing. */
export const currentKeyPattern = (keys: EncryptionKey[]) => `v1.${keys[0]?.id}.%`;
