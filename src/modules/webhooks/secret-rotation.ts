import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import type { EncryptionKey } from '../../config.ts';
import { currentKeyPattern, sealedUnderCurrentKey } from '../../lib/secret-box.ts';
import { resealSecret } from './webhook-secrets.ts';

/**
 * The second half of rotating `WEBHOOK_ENCRYPTION_KEYS`: once a new key is first in the list,
 * every endpoint's signing secrets (the previous one too, during its overlap) are sealed again
 * under it, a row at a time under a row lock, so the old key can then be dropped. The secrets
 * themselves do not change: receivers notice nothing. Safe to run again; returns what it did.
 */
export async function resealWebhookSecrets(em: EntityManager, keys: EncryptionKey[]): Promise<{ resealed: number; current: number }> {
  if (!keys[0]) throw new Error('No encryption key configured');
  const prefix = currentKeyPattern(keys);
  // Batch work (raw SQL, D106): a scan for secrets sealed under an old key, each resealed under its row lock.
  const stale = await executeNamed<{ id: string }>(
    em,
    `select id from webhook_endpoints
     where secret_sealed not like :prefix or (previous_secret_sealed is not null and previous_secret_sealed not like :prefix)`,
    { prefix },
  );
  for (const { id } of stale) {
    await em.transactional(async (tx) => {
      const [row] = await executeNamed<{ secret_sealed: string; previous_secret_sealed: string | null }>(
        tx,
        'select secret_sealed, previous_secret_sealed from webhook_endpoints where id = :id for update',
        { id },
      );
      if (!row) return;
      const again = (sealed: string) => (sealedUnderCurrentKey(keys, sealed) ? sealed : resealSecret(keys, sealed, id));
      await executeNamed(tx, 'update webhook_endpoints set secret_sealed = :secret, previous_secret_sealed = :previous where id = :id', {
        secret: again(row.secret_sealed),
        previous: row.previous_secret_sealed === null ? null : again(row.previous_secret_sealed),
        id,
      });
    });
  }
  const [total] = await executeNamed<{ count: number }>(em, 'select count(*)::int as count from webhook_endpoints', {});
  return { resealed: stale.length, current: total?.count ?? 0 };
}
