import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import type { EncryptionKey } from '../../config.ts';
import { currentKeyPattern, isSealed, open, seal } from '../../lib/secret-box.ts';

/**
 * TOTP secrets at rest (an admin's, and the pending one of an enrolment in progress): sealed
 * like webhook secrets, under `WEBHOOK_ENCRYPTION_KEYS` with the admin's id bound as context, so
 * a database dump alone defeats no second factor and a value copied onto another admin does
 * not open. Secrets stored in clear by earlier versions are read as they are (a base32 secret
 * never contains the dot a sealed value starts with) until `secrets:reseal` or their owner's
 * next sign-in seals them.
 */
const contextOf = (adminId: string) => `admin-totp:${adminId}`;

export const sealTotpSecret = (keys: EncryptionKey[], secret: string, adminId: string) => seal(keys, secret, contextOf(adminId));

export const openTotpSecret = (keys: EncryptionKey[], stored: string, adminId: string) =>
  isSealed(stored) ? open(keys, stored, contextOf(adminId)) : stored;

/**
 * Rotation (and the sealing of clear values): every admin's secret and every pending one not
 * under the first key is sealed again under it, a row at a time under a row lock. The secrets
 * do not change: authenticator apps notice nothing. Safe to run again; returns what it did.
 */
export async function resealTotpSecrets(em: EntityManager, keys: EncryptionKey[]): Promise<{ resealed: number; current: number }> {
  if (!keys[0]) throw new Error('No encryption key configured');
  const pattern = currentKeyPattern(keys);
  const again = (stored: string, adminId: string) => sealTotpSecret(keys, openTotpSecret(keys, stored, adminId), adminId);
  // Batch work (raw SQL, D106): a scan for secrets sealed under an old key, each resealed under its row lock.
  const stale = await executeNamed<{ id: string }>(em, 'select id from admins where totp_secret is not null and totp_secret not like :pattern', {
    pattern,
  });
  for (const { id } of stale) {
    await em.transactional(async (tx) => {
      const [row] = await executeNamed<{ totp_secret: string | null }>(tx, 'select totp_secret from admins where id = :id for update', { id });
      if (!row?.totp_secret) return;
      await executeNamed(tx, 'update admins set totp_secret = :secret where id = :id', { secret: again(row.totp_secret, id), id });
    });
  }
  const pending = await executeNamed<{ token_hash: string }>(
    em,
    'select token_hash from admin_sessions where pending_totp_secret is not null and pending_totp_secret not like :pattern',
    { pattern },
  );
  for (const { token_hash } of pending) {
    await em.transactional(async (tx) => {
      const [row] = await executeNamed<{ admin_id: string; pending_totp_secret: string | null }>(
        tx,
        'select admin_id, pending_totp_secret from admin_sessions where token_hash = :tokenHash for update',
        { tokenHash: token_hash },
      );
      if (!row?.pending_totp_secret) return;
      await executeNamed(tx, 'update admin_sessions set pending_totp_secret = :secret where token_hash = :tokenHash', {
        secret: again(row.pending_totp_secret, row.admin_id),
        tokenHash: token_hash,
      });
    });
  }
  const [total] = await executeNamed<{ count: number }>(em, 'select count(*)::int as count from admins where totp_secret is not null', {});
  return { resealed: stale.length, current: total?.count ?? 0 };
}
