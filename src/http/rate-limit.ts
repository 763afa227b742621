import { Elysia } from 'elysia';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppContext } from '../app-context.ts';
import { createClientAddressResolver } from './client-address.ts';
import { ApiError } from './problem.ts';
import { beforeValidation } from './guard.ts';

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

export function memoryRateLimiter(limit: number): RateLimiter {
  let windowStart = 0;
  let hits = new Map<string, number>();
  return {
    limit,
    async hit(key) {
      const now = Date.now();
      if (now - windowStart >= WINDOW_MS) {
        windowStart = now - (now % WINDOW_MS);
        hits = new Map();
      }
      const count = (hits.get(key) ?? 0) + 1;
      hits.set(key, count);
      return decision(limit, count, windowStart);
    },
  };
}

/** A limiter counted in PostgreSQL; `peek` reads a key's count without adding to it. */
export interface SharedRateLimiter extends RateLimiter {
  peek(key: string): Promise<RateDecision>;
}

export function postgresRateLimiter(orm: MikroORM, name: string, limit: number): SharedRateLimiter {
  let lastSweep = 0;
  return {
    limit,
    async peek(key) {
      const now = Date.now();
      const windowStart = now - (now % WINDOW_MS);
      const [row] = await orm.em
        .fork()
        .execute<{ hits: number }[]>('select hits from rate_limit_counters where bucket = ? and window_start = ?', [
          `${name}:${key}`,
          new Date(windowStart),
        ]);
      return decision(limit, row?.hits ?? 0, windowStart);
    },
    async hit(key) {
      const now = Date.now();
      const windowStart = now - (now % WINDOW_MS);
      const em = orm.em.fork();
      const [row] = await em.execute<{ hits: number }[]>(
        `insert into rate_limit_counters (bucket, window_start, hits) values (?, ?, 1)
         on conflict (bucket, window_start) do update set hits = rate_limit_counters.hits + 1
         returning hits`,
        [`${name}:${key}`, new Date(windowStart)],
      );
      if (now - lastSweep > WINDOW_MS) {
        lastSweep = now;
        await em.execute(`delete from rate_limit_counters where window_start < now() - interval '2 minutes'`);
      }
      return decision(limit, row?.hits ?? 1, windowStart);
    },
  };
}

/** Applies a limiter: sets the RateLimit-* headers, and refuses with 429 past the limit. */
export async function enforceRateLimit(limiter: RateLimiter, key: string, headers: Record<string, string | number>): Promise<void> {
  if (limiter.limit <= 0) return;
  const result = await limiter.hit(key);
  headers['ratelimit-limit'] = String(result.limit);
  headers['ratelimit-remaining'] = String(result.remaining);
  headers['ratelimit-reset'] = String(result.reset);
  if (!result.allowed) {
    throw new ApiError(429, 'RATE_LIMITED', `Rate limit of ${result.limit} requests per minute exceeded`, undefined, {
      'retry-after': String(result.reset),
      'ratelimit-limit': String(result.limit),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(result.reset),
    });
  }
}

export type PublicTraffic = 'read' | 'write';

let instances = 0;

/**
 * The public side's guard: `rateLimit: 'read'` (catalogue reads, per address, in memory) or
 * `rateLimit: 'write'` (installs and reviews, per address, in PostgreSQL). Either way the route
 * receives the resolved `clientAddress`.
 */
export function createPublicRateLimits(ctx: AppContext) {
  const seed = ++instances;
  const clientAddress = createClientAddressResolver(ctx.config.trustedProxies);
  const limiters: Record<PublicTraffic, RateLimiter> = {
    read: memoryRateLimiter(ctx.config.rateLimits.publicReadsPerMinute),
    write: postgresRateLimiter(ctx.orm, 'public-write', ctx.config.rateLimits.installsPerMinute),
  };
  return new Elysia({ name: 'public-rate-limits', seed }).macro({
    rateLimit: (traffic: PublicTraffic) =>
      beforeValidation(async ({ request, server, set }) => {
        const address = clientAddress(request, server);
        await enforceRateLimit(limiters[traffic], address, set.headers);
        return { clientAddress: address };
      }),
  });
}

export type PublicRateLimits = ReturnType<typeof createPublicRateLimits>;
