import { Elysia } from 'elysia';
import type { MikroORM } from '@mikro-orm/postgresql';
import { executeNamed } from '../lib/named-sql.ts';
import type { AppContext } from '../app-context.ts';
import { createClientAddressResolver } from './client-address.ts';
import { networkOf } from '../lib/ip-address.ts';
import { ApiError } from './problem.ts';
import { beforeValidation } from './guard.ts';
import { rateLimitedProblem } from './schemas.ts';

/**
 * Fixed one-minute windows. Developer and public-read limits are counted in memory per process
 * (cheap, and safe to lose); install and review limits are counted in PostgreSQL so they hold
 * across every API process. A limit of 0 disables a limiter.
 */
export interface RateDecision {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
  allowed: boolean;
}

export interface RateLimiter {
  readonly limit: number;
  hit(key: string): Promise<RateDecision>;
}

const WINDOW_MS = 60_000;

function decision(limit: number, hits: number, windowStart: number): RateDecision {
  return {
    limit,
    remaining: Math.max(0, limit - hits),
    reset: Math.max(1, Math.ceil((windowStart + WINDOW_MS - Date.now()) / 1000)),
    allowed: hits <= limit,
  };
}

/** Per-key counts in the current one-minute window; the whole map is dropped when the window turns. */
function fixedWindowCounts() {
  let windowStart = 0;
  let counts = new Map<string, number>();
  const roll = () => {
    const now = Date.now();
    if (now - windowStart >= WINDOW_MS) {
      windowStart = now - (now % WINDOW_MS);
      counts = new Map();
    }
  };
  return {
    get(key: string): { count: number; windowStart: number } {
      roll();
      return { count: counts.get(key) ?? 0, windowStart };
    },
    add(key: string): { count: number; windowStart: number } {
      roll();
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return { count, windowStart };
    },
  };
}

export function memoryRateLimiter(limit: number): RateLimiter & { hitNow(key: string): RateDecision } {
  const windows = fixedWindowCounts();
  const hitNow = (key: string) => {
    const { count, windowStart } = windows.add(key);
    return decision(limit, count, windowStart);
  };
  return { limit, hitNow, hit: async (key) => hitNow(key) };
}

const rateLimited = (result: RateDecision) =>
  new ApiError(429, 'RATE_LIMITED', `Rate limit of ${result.limit} requests per minute exceeded`, undefined, {
    'retry-after': String(result.reset),
    'ratelimit-limit': String(result.limit),
    'ratelimit-remaining': '0',
    'ratelimit-reset': String(result.reset),
  });

/**
 * Failed authentications per client, in memory: once a client has failed `limit` times in a
 * minute, its refusal is 429 whatever it sends next, and a credential that would cost the service
 * anything to check is refused unchecked (the guard decides which). Only failures count, and a
 * credential that authenticates is never refused, so junk sent from a shared address (a NAT, a
 * proxy) cannot lock out the valid keys behind it.
 */
export function failedAttemptLimiter(limit: number) {
  const windows = fixedWindowCounts();
  return {
    /** The 429 this client gets instead of a 401 while it is over its budget; null while it is not. */
    refusal(key: string): ApiError | null {
      if (limit <= 0) return null;
      const { count, windowStart } = windows.get(key);
      return count >= limit ? rateLimited(decision(limit, count + 1, windowStart)) : null;
    },
    recordFailure(key: string): void {
      if (limit > 0) windows.add(key);
    },
  };
}

/** A limiter counted in PostgreSQL. Old windows are deleted by the scheduled retention job (`RETENTION_RATE_LIMITS`). */
export function postgresRateLimiter(orm: MikroORM, name: string, limit: number): RateLimiter {
  return {
    limit,
    async hit(key) {
      const now = Date.now();
      const windowStart = now - (now % WINDOW_MS);
      const em = orm.em.fork();
      // Atomic (raw SQL, D106): the shared counter is bumped and read in one statement.
      const [row] = await executeNamed<{ hits: number }>(
        em,
        `insert into rate_limit_counters (bucket, window_start, hits) values (:bucket, :windowStart, 1)
         on conflict (bucket, window_start) do update set hits = rate_limit_counters.hits + 1
         returning hits`,
        { bucket: `${name}:${key}`, windowStart: new Date(windowStart) },
      );
      return decision(limit, row?.hits ?? 1, windowStart);
    },
  };
}

/** A limit in words for the OpenAPI document, or nothing when it is disabled (0). */
export const perMinute = (count: number, what: string): string[] => (count > 0 ? [`${count} ${what} a minute`] : []);

/**
 * Applies a limiter: sets the RateLimit-* headers (unless `headers` is null: cacheable responses
 * carry no per-client headers), and refuses with 429 past the limit.
 */
export async function enforceRateLimit(limiter: RateLimiter, key: string, headers: Record<string, string | number> | null): Promise<void> {
  if (limiter.limit <= 0) return;
  const result = await limiter.hit(key);
  if (!headers) {
    if (!result.allowed) throw rateLimited(result);
    return;
  }
  headers['ratelimit-limit'] = String(result.limit);
  headers['ratelimit-remaining'] = String(result.remaining);
  headers['ratelimit-reset'] = String(result.reset);
  if (!result.allowed) throw rateLimited(result);
}

/** `cacheable`: a read whose response is shared by every client, so it carries no RateLimit-* headers. */
export type PublicTraffic = 'read' | 'cacheable' | 'write';

let instances = 0;

/**
 * The public side's guard: `rateLimit: 'read'` (catalogue reads, per address, in memory) or
 * `rateLimit: 'write'` (installs and reviews, per address, in PostgreSQL); an IPv6 address counts
 * per /64. Either way the route receives the client's network the budget was counted against
 * (`clientNetwork`, `networkOf` the resolved address), worked out once.
 */
export function createPublicRateLimits(ctx: AppContext) {
  const seed = ++instances;
  const clientAddress = createClientAddressResolver(ctx.config.trustedProxies);
  const reads = memoryRateLimiter(ctx.config.rateLimits.publicReadsPerMinute);
  const limiters: Record<PublicTraffic, RateLimiter> = {
    read: reads,
    cacheable: reads,
    write: postgresRateLimiter(ctx.orm, 'public-write', ctx.config.rateLimits.installsPerMinute),
  };
  const { publicReadsPerMinute, installsPerMinute, failedAuthPerMinute } = ctx.config.rateLimits;
  const readDoc = rateLimitedProblem(perMinute(publicReadsPerMinute, 'catalogue reads per client address (an IPv6 /64)'));
  const limitDocs: Record<PublicTraffic, ReturnType<typeof rateLimitedProblem>> = {
    read: readDoc,
    cacheable: readDoc,
    write: rateLimitedProblem([
      ...perMinute(installsPerMinute, 'installs and reviews per client address (an IPv6 /64), shared by every process'),
      ...perMinute(failedAuthPerMinute, 'failed authentications per client address'),
    ]),
  };
  const plugin = new Elysia({ name: 'public-rate-limits', seed }).macro({
    rateLimit: (traffic: PublicTraffic) => ({
      response: { 429: limitDocs[traffic] },
      ...beforeValidation(async ({ request, server, set }) => {
        const network = networkOf(clientAddress(request, server));
        await enforceRateLimit(limiters[traffic], network, traffic === 'cacheable' ? null : set.headers);
        return { clientNetwork: network };
      }),
    }),
  });
  return Object.assign(plugin, {
    /**
     * Counts a cacheable read answered before routing (from an `onRequest` hook) against the same
     * per-address budget; false once it is spent (the request then takes the routed path, which refuses it).
     */
    allowCacheableRead(request: Request, server: Parameters<typeof clientAddress>[1]): boolean {
      return reads.limit <= 0 || reads.hitNow(networkOf(clientAddress(request, server))).allowed;
    },
  });
}

export type PublicRateLimits = ReturnType<typeof createPublicRateLimits>;
