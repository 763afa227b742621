import type { MikroORM } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import type { ApiKeySecret } from '../../config.ts';
import type { Logger } from '../../lib/logger.ts';
import type { DeveloperStatus } from '../developers/developer.entity.ts';
import type { Scope } from './api-key.entity.ts';
import { hashKey, isWellFormedKey } from './key-format.ts';
// Raw SQL here is the hot read (D106): key authentication on every API request.

/** A key that was presented, found, unexpired, unrevoked and owned by a developer who is not suspended. */
export interface AuthenticatedKey {
  id: string;
  developerId: string;
  developerStatus: DeveloperStatus;
  /** The team this key is restricted to; null for a personal key. */
  teamId: string | null;
  scopes: Scope[];
  expiresAt: Date;
  /** A key bound to one app (trusted publishing) may act on that app only. */
  appId: string | null;
}

interface KeyRow {
  id: string;
  developer_id: string;
  team_id: string | null;
  scopes: Scope[];
  expires_at: Date;
  revoked_at: Date | null;
  app_id: string | null;
  developer_status: DeveloperStatus;
}

const TOUCH_INTERVAL_MS = 60_000;

/**
 * The hot path of every developer request: one indexed lookup by keyed hash, no caching of
 * validity (a revocation takes effect on the very next request). `lastUsedAt` is written at
 * most once a minute per key: an in-process clock skips the write, and the UPDATE's own
 * condition bounds it across processes.
 */
export function createApiKeyAuthenticator(orm: MikroORM, secrets: ApiKeySecret[], logger: Logger) {
  const lastTouched = new Map<string, number>();

  function touch(keyId: string) {
    const now = Date.now();
    if (now - (lastTouched.get(keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
    lastTouched.set(keyId, now);
    if (lastTouched.size > 50_000) lastTouched.clear();
    executeNamed(
      orm.em.fork(),
      `update api_keys set last_used_at = now()
       where id = :keyId and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
      { keyId },
    ).catch((error) => logger.warn('could not record key use', { keyId, error: (error as Error).message }));
  }

  return async function authenticate(rawKey: string): Promise<AuthenticatedKey | null> {
    if (!isWellFormedKey(rawKey)) return null;
    const hashes = secrets.map((secret) => hashKey(rawKey, secret));
    const rows = await executeNamed<KeyRow>(
      orm.em.fork(),
      `select k.id, k.developer_id, k.team_id, k.scopes, k.expires_at, k.revoked_at, k.app_id, d.status as developer_status
       from api_keys k join developers d on d.id = k.developer_id
       where k.key_hash = any(:hashes::text[])`,
      { hashes },
    );
    const row = rows[0];
    if (!row || row.revoked_at || new Date(row.expires_at).getTime() <= Date.now() || row.developer_status === 'SUSPENDED') {
      return null;
    }
    touch(row.id);
    return {
      id: row.id,
      developerId: row.developer_id,
      developerStatus: row.developer_status,
      teamId: row.team_id,
      scopes: row.scopes,
      expiresAt: new Date(row.expires_at),
      appId: row.app_id,
    };
  };
}

export type ApiKeyAuthenticator = ReturnType<typeof createApiKeyAuthenticator>;
