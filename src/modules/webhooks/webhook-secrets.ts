import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { EncryptionKey } from '../../config.ts';
import { open, seal } from '../../lib/secret-box.ts';

/**
 * Standard Webhooks signing secrets: `whsec_` + base64 of 32 random bytes, stored sealed under
 * the configured encryption key with the endpoint id as context. After a rotation the previous
 * secret signs too, for `ROTATION_OVERLAP_HOURS`, so receivers can switch without losing events.
 */
export const ROTATION_OVERLAP_HOURS = 24;

export const generateSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export const sealSecret = (keys: EncryptionKey[], secret: string, endpointId: string) => seal(keys, secret, `webhook:${endpointId}`);

const openSecret = (keys: EncryptionKey[], sealed: string, endpointId: string) => open(keys, sealed, `webhook:${endpointId}`);

/** The same secret sealed again under the first key (rotating `WEBHOOK_ENCRYPTION_KEYS`). */
export const resealSecret = (keys: EncryptionKey[], sealed: string, endpointId: string) =>
  sealSecret(keys, openSecret(keys, sealed, endpointId), endpointId);

export interface SigningSecrets {
  endpointId: string;
  secretSealed: string;
  /** Only while the rotation overlap lasts. */
  previousSecretSealed: string | null;
}

/** The `webhook-*` headers of one attempt: one `v1,` signature per secret in force, space-separated. */
export function signedHeaders(keys: EncryptionKey[], secrets: SigningSecrets, messageId: string, body: string, at = new Date()) {
  const sealedSecrets = [secrets.secretSealed, ...(secrets.previousSecretSealed ? [secrets.previousSecretSealed] : [])];
  const signatures = sealedSecrets.map((sealed) => new Webhook(openSecret(keys, sealed, secrets.endpointId)).sign(messageId, at, body));
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
