import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
// Raw SQL here is batch work (D106): housekeeping of unreferenced copies.

const BATCH = 500;

/**
 * Deletes mirrored images that no check and no published listing refers to, once their grace
 * period (counted from the last time a check stored them) is over. A check storing the same bytes
 * again renews `stored_at` in the transaction that refers to them, and the delete re-checks
 * `stored_at` on the row it locks, so a copy being taken up again is never lost; the foreign keys
 * refuse the rest.
 */
export async function collectUnreferencedAssets(em: EntityManager, graceSeconds: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await executeNamed<{ n: number }>(
      em,
      `with gone as (
         delete from assets a
         where a.stored_at < now() - make_interval(secs => :graceSeconds)
           and a.sha256 in (
             select s.sha256 from assets s
             where s.stored_at < now() - make_interval(secs => :graceSeconds)
               and not exists (select 1 from asset_checks c where c.sha256 = s.sha256)
               and not exists (select 1 from published_assets p where p.sha256 = s.sha256)
             limit ${BATCH})
         returning 1)
       select count(*)::int as n from gone`,
      { graceSeconds },
    );
    const count = rows[0]?.n ?? 0;
    deleted += count;
    if (count < BATCH) return deleted;
  }
}
