import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { safeFetch } from '../../lib/safe-fetch.ts';

/** Why an issuer's keys could not be had; the exchange names it to the caller. */
export class IssuerKeysError extends Error {
  override name = 'IssuerKeysError';
}

const KEYS_TTL_MS = 60 * 60_000;
/** A token naming a key we do not hold refetches the set, but no more often than this per issuer. */
const UNKNOWN_KID_COOLDOWN_MS = 30_000;
const MAX_DOCUMENT_BYTES = 256 * 1024;

interface CachedKeys {
  keys: JWTVerifyGetKey;
  kids: Set<string>;
  fetchedAt: number;
}

/**
 * The signing keys of CI identity providers, found through their OpenID discovery documents.
 * Every fetch goes through the SSRF guard (an issuer is configuration, but its `jwks_uri` is what
 * its server says); keys are cached for an hour and fetched again when a token names a key the
 * cache does not hold (a provider rotating its keys).
 */
export function createIssuerKeys(options: { allowPrivate: boolean; unknownKidCooldownMs?: number }) {
  const cooldown = options.unknownKidCooldownMs ?? UNKNOWN_KID_COOLDOWN_MS;
  const cache = new Map<string, CachedKeys>();
  const loading = new Map<string, Promise<CachedKeys>>();

  async function fetchJson(url: string, what: string): Promise<Record<string, unknown>> {
    let body: unknown;
    try {
      const response = await safeFetch(url, {
        allowPrivate: options.allowPrivate,
        maxBytes: MAX_DOCUMENT_BYTES,
        timeoutMs: 5_000,
        maxRedirects: 2,
        headers: { accept: 'application/json' },
      });
      if (response.status !== 200) throw new IssuerKeysError(`its ${what} answered ${response.status}`);
      body = JSON.parse(new TextDecoder().decode(response.bytes));
    } catch (error) {
      if (error instanceof IssuerKeysError) throw error;
      throw new IssuerKeysError(`its ${what} could not be read (${(error as Error).message})`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new IssuerKeysError(`its ${what} is not a JSON object`);
    return body as Record<string, unknown>;
  }

  async function load(issuer: string): Promise<CachedKeys> {
    const discovery = await fetchJson(`${issuer}/.well-known/openid-configuration`, 'discovery document');
    if (discovery.issuer !== issuer) throw new IssuerKeysError('its discovery document names another issuer');
    if (typeof discovery.jwks_uri !== 'string') throw new IssuerKeysError('its discovery document has no jwks_uri');
    const set = await fetchJson(discovery.jwks_uri, 'key set');
    if (!Array.isArray(set.keys)) throw new IssuerKeysError('its key set has no keys');
    const jwks = set as unknown as JSONWebKeySet;
    return {
      keys: createLocalJWKSet(jwks),
      kids: new Set(jwks.keys.map((key) => key.kid).filter((kid): kid is string => typeof kid === 'string')),
      fetchedAt: Date.now(),
    };
  }

  /** One fetch at a time per issuer, shared by every exchange waiting on it. */
  function refresh(issuer: string): Promise<CachedKeys> {
    const pending = loading.get(issuer);
    if (pending) return pending;
    const next = load(issuer)
      .then((keys) => (cache.set(issuer, keys), keys))
      .finally(() => loading.delete(issuer));
    loading.set(issuer, next);
    return next;
  }

  /** `heldOnly`: the keys this process already holds for the token, or a refusal; nothing is fetched. */
  return async function keysFor(issuer: string, kid: string | undefined, options: { heldOnly?: boolean } = {}): Promise<JWTVerifyGetKey> {
    const cached = cache.get(issuer);
    const age = cached ? Date.now() - cached.fetchedAt : Infinity;
    const unknownKid = cached !== undefined && kid !== undefined && !cached.kids.has(kid);
    if (options.heldOnly && (!cached || age > KEYS_TTL_MS || unknownKid))
      throw new IssuerKeysError('its keys are not held here, and were not fetched');
    if (!cached || age > KEYS_TTL_MS || (unknownKid && age >= cooldown)) return (await refresh(issuer)).keys;
    return cached.keys;
  };
}

export type IssuerKeys = ReturnType<typeof createIssuerKeys>;
