import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import type { ApiKeySecret } from '../../config.ts';
import type { DeveloperPrincipal } from '../identity/auth.ts';
import { ApiError, notFound } from '../../http/problem.ts';
import { Developer } from '../developers/developer.entity.ts';
import { assertVerified } from '../developers/verification.ts';
import { ApiKey, SCOPES, type Scope } from './api-key.entity.ts';
import type { ApiKeyView, CreateApiKeyInput } from './api-keys.model.ts';
import { generateKey, hashKey, maskKey } from './key-format.ts';
import { authorizeTeam, callerOf } from '../teams/access.ts';
import { recordTeamAudit } from '../teams/team-audit.ts';

export const MAX_ACTIVE_KEYS = 20;
export const DEFAULT_EXPIRY_DAYS = 90;
const DAY_MS = 86_400_000;

export function toApiKeyView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    maskedKey: maskKey(key.last4),
    parentKeyId: key.parentKeyId ?? null,
    appId: key.appId ?? null,
    teamId: key.teamId ?? null,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

const lockDeveloper = (tx: EntityManager, developerId: string) =>
  tx.findOneOrFail(Developer, { id: developerId }, { lockMode: LockMode.PESSIMISTIC_WRITE });

/** The minting key, read again under the developer lock: revoked or expired since it authenticated is 401. */
async function assertParentStillValid(tx: EntityManager, parentKeyId: string): Promise<void> {
  const parent = await tx.findOne(ApiKey, { id: parentKeyId }, { disableIdentityMap: true });
  if (!parent || parent.revokedAt || parent.expiresAt <= new Date())
    throw new ApiError(401, 'UNAUTHENTICATED', 'The API key is invalid, expired or revoked');
}

/**
 * Mints a key. A key minted with another key carries only scopes its parent has and expires
 * no later than its parent; the full key leaves this function once and is stored only as a
 * keyed hash.
 */
export async function createApiKey(
  em: EntityManager,
  principal: DeveloperPrincipal,
  input: CreateApiKeyInput,
  signingSecret: ApiKeySecret,
): Promise<{ key: ApiKey; fullKey: string }> {
  const scopes = SCOPES.filter((scope) => input.scopes.includes(scope));
  if (principal.via === 'apiKey') {
    const missing = scopes.filter((scope) => !principal.key.scopes.includes(scope));
    if (missing.length > 0) {
      throw new ApiError(403, 'INSUFFICIENT_SCOPE', `A key can grant only scopes it holds itself (missing: ${missing.join(', ')})`);
    }
  }
  return em.transactional(async (tx) => {
    // The developer row lock serialises creations (so the active-key cap holds) and revocations
    // (so a key minted while its parent is being revoked is either refused or revoked with it).
    const developer = await lockDeveloper(tx, principal.developerId);
    assertVerified(developer.status, { what: 'API keys', done: 'created' });
    if (principal.via === 'apiKey') await assertParentStillValid(tx, principal.key.id);
    // A team key mints keys of its own team only; a key for a team needs a member (any role).
    const caller = callerOf(principal);
    const teamId = input.teamId ?? caller.keyTeamId;
    if (teamId !== null) await authorizeTeam(tx, caller, teamId, 'read');
    // Keys exchanged by trusted publishing live 15 minutes and are not the developer's to mint: not counted.
    const active = await tx.count(ApiKey, { developer, appId: null, revokedAt: null, expiresAt: { $gt: new Date() } });
    if (active >= MAX_ACTIVE_KEYS) {
      throw new ApiError(409, 'LIMIT_EXCEEDED', `At most ${MAX_ACTIVE_KEYS} active API keys; revoke one first`);
    }
    const requested = new Date(Date.now() + (input.expiresInDays ?? DEFAULT_EXPIRY_DAYS) * DAY_MS);
    const expiresAt = principal.via === 'apiKey' && principal.key.expiresAt < requested ? principal.key.expiresAt : requested;
    const fullKey = generateKey();
    const key = tx.create(ApiKey, {
      developer,
      appId: null,
      parentKeyId: principal.via === 'apiKey' ? principal.key.id : null,
      teamId,
      name: input.name,
      scopes: scopes as Scope[],
      keyHash: hashKey(fullKey, signingSecret),
      secretId: signingSecret.id,
      last4: fullKey.slice(-4),
      expiresAt,
    });
    if (teamId !== null) {
      await tx.flush();
      recordTeamAudit(tx, { teamId, actorDeveloperId: developer.id, action: 'key.created', target: key.id, details: { name: input.name, scopes } });
    }
    return { key, fullKey };
  });
}

export async function listApiKeys(em: EntityManager, developerId: string): Promise<ApiKey[]> {
  return em.find(ApiKey, { developer: developerId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
}

/**
 * Revokes a key and every key minted from it, directly or through its children. With the
 * OAuth token a developer may revoke any of their keys; with a key, only itself and its
 * descendants (anything else answers 404, as if it did not exist).
 */
export async function revokeApiKey(em: EntityManager, principal: DeveloperPrincipal, keyId: string): Promise<ApiKey> {
  return em.transactional(async (tx) => {
    await lockDeveloper(tx, principal.developerId);
    const key = await tx.findOne(ApiKey, { id: keyId, developer: principal.developerId });
    if (!key) throw notFound('API key');
    if (principal.via === 'apiKey' && key.id !== principal.key.id) {
      // A recursive walk up the key's lineage (raw SQL, D106: no entity form for WITH RECURSIVE).
      const [lineage] = await executeNamed<{ found: boolean }>(
        tx,
        `with recursive ancestors as (
           select id, parent_key_id from api_keys where id = :keyId
           union all
           select k.id, k.parent_key_id from api_keys k join ancestors a on k.id = a.parent_key_id
         )
         select exists (select 1 from ancestors where id = :callerKeyId) as found`,
        { keyId: key.id, callerKeyId: principal.key.id },
      );
      if (!lineage?.found) throw notFound('API key');
    }
    // Batch work (raw SQL, D106): the key and every key minted from it, revoked in one statement.
    await executeNamed(
      tx,
      `with recursive lineage as (
         select id from api_keys where id = :keyId
         union all
         select k.id from api_keys k join lineage l on k.parent_key_id = l.id
       )
       update api_keys set revoked_at = now() where id in (select id from lineage) and revoked_at is null`,
      { keyId: key.id },
    );
    await tx.refresh(key);
    return key;
  });
}
