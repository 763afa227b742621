import { Elysia, type DocumentDecoration } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import { ApiError, type ErrorCode } from '../../http/problem.ts';
import {
  enforceRateLimit,
  failedAttemptLimiter,
  memoryRateLimiter,
  perMinute,
  postgresRateLimiter,
  type RateLimiter,
} from '../../http/rate-limit.ts';
import { GUARD_PROBLEMS, rateLimitedProblem } from '../../http/schemas.ts';
import { beforeValidation, type GuardContext } from '../../http/guard.ts';
import { createClientAddressResolver } from '../../http/client-address.ts';
import { networkOf } from '../../lib/ip-address.ts';
import type { PlatformIdentity } from './platform-identity.ts';
import { createApiKeyAuthenticator, type AuthenticatedKey } from '../api-keys/api-key-auth.ts';
import { isWellFormedKey, looksLikeApiKey } from '../api-keys/key-format.ts';
import type { Scope } from '../api-keys/api-key.entity.ts';
import { findDeveloperIdByPlatformUser } from '../developers/developers.service.ts';

/**
 * Who is calling, as a route sees it. A developer arrives either with the platform OAuth
 * token (full control of their own keys) or with one of their API keys (bounded by its scopes).
 */
export type DeveloperPrincipal =
  | { via: 'oauth'; developerId: string; identity: PlatformIdentity }
  | { via: 'apiKey'; developerId: string; key: AuthenticatedKey };

const unauthenticated = (detail = 'A valid bearer token is required') => new ApiError(401, 'UNAUTHENTICATED', detail);

function bearerToken(headers: Record<string, string | undefined>): string {
  const header = headers.authorization;
  const match = header?.match(/^Bearer[ ]+([^\s]+)[ ]*$/i);
  if (!match?.[1]) throw unauthenticated();
  return match[1];
}

/** The guard's part of a route's document: bearer auth, and the codes the guard below refuses with. */
const bearerDoc = (codes: ErrorCode[], security: Record<string, string[]>[] = [{ bearer: [] }]): DocumentDecoration =>
  ({ security, [GUARD_PROBLEMS]: codes }) as DocumentDecoration;
const TOKEN_REFUSALS: ErrorCode[] = ['UNAUTHENTICATED', 'RATE_LIMITED'];
/** A key may lack the route's scope; a key bound to one app (`assertKeyReaches`) is refused elsewhere (403) and on other apps (404). */
const KEY_REFUSALS: ErrorCode[] = ['INSUFFICIENT_SCOPE', 'NOT_FOUND'];

/** What a key bound to one app (trusted publishing) may do: read, edit, submit and revise that app. */
const APP_BOUND_ROUTES = new Set([
  '/api/dev/apps/:id',
  '/api/dev/apps/:id/submit',
  '/api/dev/apps/:id/preflight',
  '/api/dev/apps/:id/revisions',
  '/api/dev/apps/:id/revision',
  '/api/dev/apps/:id/withdraw',
]);

/** An app-bound key elsewhere is refused; on another app's routes it learns nothing of that app (404). */
function assertKeyReaches(key: AuthenticatedKey, context: GuardContext): void {
  if (key.appId === null) return;
  if (!APP_BOUND_ROUTES.has(context.route)) {
    throw new ApiError(
      403,
      'INSUFFICIENT_SCOPE',
      'This key was exchanged by trusted publishing: it may only read, edit, submit and revise its one app',
    );
  }
  if (context.params.id?.toLowerCase() !== key.appId) throw new ApiError(404, 'NOT_FOUND', 'App not found');
}

/**
 * Writes limited per developer in PostgreSQL, so every API process shares the count: a burst of
 * key creations, submissions, revisions or webhook sends (test pings and redeliveries, which
 * occupy the shared delivery workers) is refused whichever process it lands on.
 */
export type SharedLimit = 'keyCreations' | 'submissions' | 'revisions' | 'webhookSends';

/** What a developer route requires: a scope (`true`: any key), and optionally a shared write limit. */
export type Requirement = Scope | true | { scope: Scope | true; limit: SharedLimit };

const requirementOf = (requirement: Requirement) => (typeof requirement === 'object' ? requirement : { scope: requirement, limit: undefined });

/**
 * The auth guard every route declares. Options, by what the route accepts:
 * - `platformToken: true` — only the platform OAuth token (registration, reviews);
 * - `optionalPlatformToken: true` — the platform token if sent (installs);
 * - `developer: true` — the OAuth token or any valid API key, no scope (profile edits, keys);
 *   `developer: <Scope>` — the OAuth token, or an API key holding that scope (webhooks);
 * - `apiKey: <Scope> | true` — only an API key, holding that scope when one is named.
 * `developer` and `apiKey` also take `{ scope, limit }` for a shared write limit.
 */
let instances = 0;

export function createAuth(ctx: AppContext) {
  // Named so the controllers that `.use` it share one instance; the seed keeps apps apart (tests build many).
  const seed = ++instances;
  const authenticateKey = createApiKeyAuthenticator(ctx.orm, ctx.config.apiKeySecrets, ctx.logger);
  const developerLimiter = memoryRateLimiter(ctx.config.rateLimits.developerPerMinute);
  const failedAttempts = failedAttemptLimiter(ctx.config.rateLimits.failedAuthPerMinute);
  const clientAddress = createClientAddressResolver(ctx.config.trustedProxies);
  const limits = ctx.config.rateLimits;
  const sharedLimiters: Record<SharedLimit, RateLimiter> = {
    keyCreations: postgresRateLimiter(ctx.orm, 'key-creations', limits.keyCreationsPerMinute),
    submissions: postgresRateLimiter(ctx.orm, 'submissions', limits.submissionsPerMinute),
    revisions: postgresRateLimiter(ctx.orm, 'revisions', limits.revisionsPerMinute),
    webhookSends: postgresRateLimiter(ctx.orm, 'webhook-sends', limits.webhookSendsPerMinute),
  };
  const failedAuthWords = perMinute(limits.failedAuthPerMinute, 'failed authentications per client address');
  const sharedLimitWords: Record<SharedLimit, string[]> = {
    keyCreations: perMinute(limits.keyCreationsPerMinute, 'key creations per developer'),
    submissions: perMinute(limits.submissionsPerMinute, 'submissions per developer'),
    revisions: perMinute(limits.revisionsPerMinute, 'revisions per developer'),
    webhookSends: perMinute(limits.webhookSendsPerMinute, 'webhook test pings and redeliveries per developer'),
  };
  /** Documents the 429 of a route: the limits that apply, and the headers. */
  const limitedDoc = (limit: SharedLimit | undefined) => ({
    429: rateLimitedProblem([
      ...perMinute(limits.developerPerMinute, 'requests per API key (per account for the OAuth token)'),
      ...(limit ? sharedLimitWords[limit] : []),
      ...failedAuthWords,
    ]),
  });
  const failedAuthDoc = { 429: rateLimitedProblem(failedAuthWords) };

  /**
   * Checks a credential while a client is over its failure budget only when that is cheap: a key
   * with a valid checksum (a keyed hash and one indexed read) or a platform token verified locally
   * (a signature); a malformed key or a token the platform would have to introspect is refused unchecked.
   */
  const cheapToCheck = (token: string) => (looksLikeApiKey(token) ? isWellFormedKey(token) : ctx.verifier.mode !== 'introspection');

  /**
   * Runs an authentication for a guard. No bearer token at all is a plain 401 and counts for
   * nothing (it guesses nothing); each credential that fails counts against the client's network.
   * Past the budget, failures are 429 and costly checks are skipped, but a credential that
   * authenticates is always served.
   */
  async function authenticated<T>(context: GuardContext, authenticate: (token: string) => Promise<T>): Promise<T> {
    const token = bearerToken(context.headers);
    const client = networkOf(clientAddress(context.request, context.server));
    const refusal = failedAttempts.refusal(client);
    if (refusal && !cheapToCheck(token)) throw refusal;
    try {
      return await authenticate(token);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
      failedAttempts.recordFailure(client);
      throw refusal ?? error;
    }
  }
  /** The developer API's limit is per key (per account for the OAuth token). */
  const limit = (principal: DeveloperPrincipal, headers: Record<string, string | number>) =>
    enforceRateLimit(developerLimiter, principal.via === 'apiKey' ? principal.key.id : `oauth:${principal.identity.subject}`, headers);

  async function platformIdentity(token: string): Promise<PlatformIdentity> {
    const identity = await ctx.verifier.verify(token);
    if (!identity) throw unauthenticated('The token is invalid, expired or not issued to a first-party client');
    return identity;
  }

  /** For routes that take only the platform token: an API key there is refused outright. */
  async function platformIdentityFrom(token: string): Promise<PlatformIdentity> {
    if (looksLikeApiKey(token)) {
      throw new ApiError(401, 'UNAUTHENTICATED', 'This endpoint takes the platform OAuth token, not an API key');
    }
    return platformIdentity(token);
  }

  async function apiKey(token: string): Promise<AuthenticatedKey> {
    const key = await authenticateKey(token);
    if (!key) throw unauthenticated('The API key is invalid, expired or revoked');
    return key;
  }

  async function developerFromToken(token: string): Promise<DeveloperPrincipal> {
    if (looksLikeApiKey(token)) {
      const key = await apiKey(token);
      return { via: 'apiKey', developerId: key.developerId, key };
    }
    const identity = await platformIdentity(token);
    const developerId = await findDeveloperIdByPlatformUser(ctx.orm.em.fork(), identity.subject);
    if (!developerId) throw new ApiError(404, 'NOT_FOUND', 'No developer profile for this account: register first');
    return { via: 'oauth', developerId, identity };
  }

  return new Elysia({ name: 'auth', seed }).macro({
    platformToken: (enabled: true) => ({
      detail: bearerDoc(TOKEN_REFUSALS),
      response: failedAuthDoc,
      ...beforeValidation((context) => {
        void enabled;
        return authenticated(context, async (token) => ({ identity: await platformIdentityFrom(token) }));
      }),
    }),
    /** The platform OAuth token if one is sent (`identity` is null without the header); anything else sent is 401. */
    optionalPlatformToken: (enabled: true) => ({
      detail: bearerDoc(TOKEN_REFUSALS, [{}, { bearer: [] }]),
      response: failedAuthDoc,
      ...beforeValidation(async (context) => {
        void enabled;
        if (context.headers.authorization === undefined) return { identity: null as PlatformIdentity | null };
        return authenticated(context, async (token) => ({ identity: (await platformIdentityFrom(token)) as PlatformIdentity | null }));
      }),
    }),
    developer: (requirement: Requirement) => {
      const { scope, limit: sharedLimit } = requirementOf(requirement);
      return {
        detail: bearerDoc([...TOKEN_REFUSALS, ...KEY_REFUSALS]),
        response: limitedDoc(sharedLimit),
        ...beforeValidation(async (context) => {
          const principal = await authenticated(context, developerFromToken);
          if (principal.via === 'apiKey') assertKeyReaches(principal.key, context);
          await limit(principal, context.set.headers);
          if (scope !== true && principal.via === 'apiKey' && !principal.key.scopes.includes(scope)) {
            throw new ApiError(403, 'INSUFFICIENT_SCOPE', `This API key lacks the ${scope} scope`);
          }
          if (sharedLimit) await enforceRateLimit(sharedLimiters[sharedLimit], principal.developerId, context.set.headers);
          return { principal };
        }),
      };
    },
    apiKey: (requirement: Requirement) => {
      const { scope, limit: sharedLimit } = requirementOf(requirement);
      return {
        detail: bearerDoc([...TOKEN_REFUSALS, 'API_KEY_REQUIRED', ...KEY_REFUSALS]),
        response: limitedDoc(sharedLimit),
        ...beforeValidation(async (context) => {
          const key = await authenticated(context, async (token) => {
            if (!looksLikeApiKey(token)) {
              await platformIdentity(token);
              throw new ApiError(403, 'API_KEY_REQUIRED', 'This endpoint needs an API key, not the OAuth token');
            }
            return apiKey(token);
          });
          const principal: DeveloperPrincipal = { via: 'apiKey', developerId: key.developerId, key };
          assertKeyReaches(key, context);
          await limit(principal, context.set.headers);
          if (scope !== true && !key.scopes.includes(scope)) {
            throw new ApiError(403, 'INSUFFICIENT_SCOPE', `This API key lacks the ${scope} scope`);
          }
          if (sharedLimit) await enforceRateLimit(sharedLimiters[sharedLimit], principal.developerId, context.set.headers);
          return { principal };
        }),
      };
    },
  });
}

export type AuthPlugin = ReturnType<typeof createAuth>;
