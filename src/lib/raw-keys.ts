// Before the ORM: its registry of keys must be the one that holds them (D198).
import './raw-fragment-registry.ts';
import { raw, type RawQueryFragment } from '@mikro-orm/core';

/**
 * SQL to filter or sort by, as a MikroORM object key (`{ [rawKey('lower(email)')]: value }`). The
 * ORM finds such a key's SQL through a weak map from the key's Symbol, and on Bun the Symbol can be
 * collected while the object still holds the key: the ORM then drops the condition, and a lookup by
 * e-mail matches every row (D195). The fragment made here is kept for the process's life, and with
 * it its Symbol; one per SQL text, and the texts are the code's own (a few), so nothing grows. The
 * keys the ORM makes from these while it processes a filter are held by `raw-fragment-registry.ts` (D198).
 */
/** What `raw` gives: a fragment that is also a Symbol, so it can be an object key. */
type RawKey = RawQueryFragment & symbol;
const kept = new Map<string, RawKey>();

export function rawKey(sqlText: string | ((alias: string) => string)): RawKey {
  const fragment = raw<RawKey>(sqlText);
  const known = kept.get(fragment.sql);
  if (known) return known;
  kept.set(fragment.sql, fragment);
  return fragment;
}
