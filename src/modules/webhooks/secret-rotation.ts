import type { EntityManager } from '@mikro-orm/postgresql';
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
  const stale = await em.execute<{ id: string }[]>(
    `select id from webhook_endpoints
     where secret_sealed not like ? or (previous_secret_sealed is not null and previous_secret_sealed not like ?)`,
    [prefix, prefix],
  );
  for (const { id } of stale) {
    await em.transactional(async (tx) => {
      const [row] = await tx.execute<{ secret_sealed: string; previous_secret_sealed: string | null }[]>(
        'select secret_sealed, previous_secret_sealed from webhook_endpoints where id = ? for update',
        [id],
      );
      if (!row) return;
      const again = (sealed: string) => (sealedUnderCurrentKey(keys, sealed) ? sealed : resealSecret(keys, sealed, id));
      await tx.execute('update webhook_endpoints set secret_sealed = ?, previous_secret_sealed = ? where id = ?', [
        again(row.secret_sealed),
        row.previous_secret_sealed === null ? null : again(row.previous_secret_sealed),
        id,
      ]);
    });
  }
  const [total] = await em.execute<{ count: number }[]>('select count(*)::int as count from webhook_endpoints');
  return { resealed: stale.length, current: total?.count ?? 0 };
}
