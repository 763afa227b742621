import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { addressSet, ipFamily, parseCidr } from './ip-syntax.ts';

/**
 * The only module that reads `process.env`. Everything else receives a validated `Config`.
 */

const Bool = Type.Union([Type.Literal('true'), Type.Literal('false')]);
const PositiveIntString = Type.String({ pattern: '^[0-9]+$' });
const UrlString = Type.String({ pattern: '^(postgres|postgresql|https?|smtps?)://' });
/** `90s`, `30m`, `12h`, `7d`. */
const Duration = Type.String({ pattern: '^[0-9]{1,6}[smhd]$' });

const EnvSchema = Type.Object({
  APP_ENV: Type.Optional(Type.Union([Type.Literal('development'), Type.Literal('test'), Type.Literal('production')])),
  PORT: Type.Optional(PositiveIntString),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  PUBLIC_URL: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_URL: Type.Optional(UrlString),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  LOG_LEVEL: Type.Optional(
    Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error'), Type.Literal('silent')]),
  ),
  OAUTH_JWKS_URL: Type.Optional(UrlString),
  OAUTH_ISSUER: Type.Optional(Type.String({ minLength: 1 })),
  OAUTH_AUDIENCE: Type.Optional(Type.String({ minLength: 1 })),
  OAUTH_INTROSPECTION_URL: Type.Optional(UrlString),
  OAUTH_INTROSPECTION_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  OAUTH_INTROSPECTION_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  OAUTH_ALLOWED_CLIENTS: Type.Optional(Type.String()),
  API_KEY_SECRETS: Type.Optional(Type.String({ minLength: 1 })),
  SMTP_URL: Type.Optional(UrlString),
  MAIL_FROM: Type.Optional(Type.String({ minLength: 1 })),
  ALLOW_PRIVATE_FETCH: Type.Optional(Bool),
  TRUSTED_PROXIES: Type.Optional(Type.String()),
  CORS_ORIGINS: Type.Optional(Type.String()),
  RATE_LIMITS: Type.Optional(Type.String()),
  MAX_BODY_BYTES: Type.Optional(PositiveIntString),
  MAX_APPS_PER_DEVELOPER: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  RETENTION_RATE_LIMITS: Type.Optional(Duration),
  RETENTION_JOBS: Type.Optional(Duration),
  RETENTION_DEAD_LETTERS: Type.Optional(Duration),
  RETENTION_EMAILS: Type.Optional(Duration),
  RETENTION_ASSETS: Type.Optional(Duration),
  RETENTION_WEBHOOKS: Type.Optional(Duration),
  WEBHOOK_ENCRYPTION_KEYS: Type.Optional(Type.String({ minLength: 1 })),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
  METRICS_PORT: Type.Optional(PositiveIntString),
  METRICS_HOST: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_REPLICA_URLS: Type.Optional(Type.String()),
  DATABASE_POOL_MAX: Type.Optional(PositiveIntString),
  CATALOGUE_POOL_MAX: Type.Optional(PositiveIntString),
  CONNECTION_WAIT_MS: Type.Optional(PositiveIntString),
  STATEMENT_TIMEOUT_MS: Type.Optional(PositiveIntString),
  JOBS_POOL_MAX: Type.Optional(PositiveIntString),
  JOBS_SUPERVISE_SECONDS: Type.Optional(PositiveIntString),
  STATS_ROLL_UP_DELAY_SECONDS: Type.Optional(PositiveIntString),
  WEBHOOK_TIMEOUT_SECONDS: Type.Optional(PositiveIntString),
  WEB_CONCURRENCY: Type.Optional(PositiveIntString),
  PLATFORM_SCOPES: Type.Optional(Type.String()),
  TRUSTED_PUBLISHING_ISSUERS: Type.Optional(Type.String()),
  TRUSTED_PUBLISHING_AUDIENCE: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});
type Env = Static<typeof EnvSchema>;

/** Variables that hold credentials (URLs may carry a password). */
const SECRET_VARIABLES = new Set([
  'DATABASE_URL',
  'SMTP_URL',
  'API_KEY_SECRETS',
  'OAUTH_INTROSPECTION_CLIENT_SECRET',
  'WEBHOOK_ENCRYPTION_KEYS',
  'OAUTH_INTROSPECTION_URL',
  'OAUTH_JWKS_URL',
  'METRICS_TOKEN',
  'DATABASE_REPLICA_URLS',
]);

export type AppEnv = 'development' | 'test' | 'production';
export type Role = 'all' | 'api' | 'worker';

export interface ApiKeySecret {
  id: string;
  secret: string;
}

export type OAuthConfig =
  | { mode: 'jwks'; jwksUrl: string; issuer: string; audience: string; allowedClients: string[] }
  | {
      mode: 'introspection';
      introspectionUrl: string;
      clientId?: string;
      clientSecret?: string;
      allowedClients: string[];
    }
  | { mode: 'dev'; allowedClients: string[] };

export interface RateLimitConfig {
  developerPerMinute: number;
  publicReadsPerMinute: number;
  installsPerMinute: number;
  /** Failed authentications per client address before further attempts are refused unchecked. */
  failedAuthPerMinute: number;
  /** Failed admin sign-ins per minute, per account and per address; the next attempt is refused unchecked. */
  signInFailuresPerMinute: number;
  /** Per developer, counted in PostgreSQL so every process shares them. */
  keyCreationsPerMinute: number;
  submissionsPerMinute: number;
  revisionsPerMinute: number;
  /** Webhook test pings and redeliveries per developer, shared like the limits above. */
  webhookSendsPerMinute: number;
  /** Refused trusted-publishing token exchanges per client address, shared like the limits above. */
  exchangeFailuresPerMinute: number;
}

export interface MailConfig {
  /** Unset: messages are kept in the dev outbox (the `emails` table) instead of being sent. */
  smtpUrl?: string;
  /** The From header: `address` or `Display Name <address>`. */
  from: string;
}

/** How long each kind of housekeeping data is kept, in seconds (see `src/modules/retention`). */
export interface RetentionConfig {
  /** Rate-limit windows (one minute each) older than this are deleted. */
  rateLimits: number;
  /** Finished jobs (completed, cancelled, failed) stay in pg-boss's table this long. */
  jobs: number;
  /** Jobs in a dead-letter queue stay this long. */
  deadLetters: number;
  /** Sent e-mails (and the dev outbox) this long: the record is also what keeps a message from being sent twice. */
  emails: number;
  /** An asset no listing or check refers to is deleted this long after it was last stored. */
  assets: number;
  /** Webhook events and settled deliveries (the delivery log developers read) this long after the event. */
  webhooks: number;
}

/** argon2id's cost (`lib/password-hashing.ts`): KiB of memory, and passes over it. */
export interface PasswordHashCost {
  memoryCost: number;
  timeCost: number;
}

/** Bun's own argon2id cost; the suite's light one (D212). */
export const PRODUCTION_PASSWORD_HASH_COST: PasswordHashCost = { memoryCost: 65_536, timeCost: 2 };
export const TEST_PASSWORD_HASH_COST: PasswordHashCost = { memoryCost: 1_024, timeCost: 1 };

export interface Config {
  env: AppEnv;
  port: number;
  host: string;
  /** Where clients reach the service (`https://marketplace.example.com`, no trailing slash): the API document's server and the base of absolute asset URLs. */
  publicUrl: string;
  /** Absent in development and test means "start an embedded PostgreSQL". */
  databaseUrl?: string;
  dataDir: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** argon2id's cost for admin passwords: Bun's own, or a light one under `APP_ENV=test` (D212). */
  passwordHashCost: PasswordHashCost;
  oauth: OAuthConfig;
  /** First entry signs new keys; the rest still verify, so a secret can be rotated. */
  apiKeySecrets: ApiKeySecret[];
  mail: MailConfig;
  allowPrivateFetch: boolean;
  trustedProxies: string[];
  /** Browser origins allowed to call the public catalogue API (`*` for any); none by default. */
  corsOrigins: string[];
  rateLimits: RateLimitConfig;
  maxBodyBytes: number;
  /** Apps one developer may have (every app not deleted counts); each one costs checks, mirrors and review time. */
  maxAppsPerDeveloper: number;
  retention: RetentionConfig;
  /** AES-256 keys that webhook signing secrets are stored under; the first encrypts, all decrypt. */
  webhookEncryptionKeys: EncryptionKey[];
  metrics: MetricsConfig;
  database: DatabasePoolConfig;
  /** API processes to run on this machine (sharing the port); 1 is the plain single process. */
  webConcurrency: number;
  /** How often a worker process expires the jobs of processes that died mid-job (pg-boss supervision). */
  jobsSuperviseSeconds: number;
  /** How long a counter roll-up waits for more events to join it (0: at once). */
  statsRollUpDelaySeconds: number;
  /** How long a webhook receiver has to answer one attempt before it counts as failed. */
  webhookTimeoutSeconds: number;
  trustedPublishing: TrustedPublishingConfig;
  /** The platform OAuth scopes an app may declare (`permissions`), in the order users read them, each with its label. */
  platformScopes: PlatformScope[];
}

/** Which CI identity providers may trade their OIDC tokens for short-lived publishing keys. */
export interface TrustedPublishingConfig {
  /** Issuer URLs exactly as their tokens' `iss` claim says them. */
  issuers: string[];
  /** The `aud` a token must carry. */
  audience: string;
}

export interface PlatformScope {
  scope: string;
  /** What the scope lets an app do, as users read it after "This app will be able to…". */
  label: string;
}

/** The platform's scopes and their labels unless `PLATFORM_SCOPES` says otherwise. */
export const DEFAULT_PLATFORM_SCOPES: readonly PlatformScope[] = [
  { scope: 'tasks:read', label: 'See your tasks' },
  { scope: 'tasks:write', label: 'Create, change and delete your tasks' },
  { scope: 'projects:read', label: 'See your projects' },
  { scope: 'projects:write', label: 'Create, change and delete your projects' },
  { scope: 'comments:read', label: 'Read comments' },
  { scope: 'comments:write', label: 'Post and edit comments' },
  { scope: 'users:read', label: 'See the names and e-mail addresses of people in your workspace' },
  { scope: 'files:read', label: 'See files attached to your tasks' },
  { scope: 'files:write', label: 'Attach, change and delete files' },
  { scope: 'webhooks:write', label: 'Subscribe to changes in your workspace' },
];

const SCOPE_NAME = /^[a-z][a-z0-9_.-]*(:[a-z0-9_.-]+)*$/;

/**
 * `PLATFORM_SCOPES`: comma-separated scopes in display order, each `scope` (a default scope keeps
 * its label) or `scope=Label`; a scope the defaults do not know needs a label.
 */
function parsePlatformScopes(raw: string | undefined): PlatformScope[] {
  if (raw === undefined) return [...DEFAULT_PLATFORM_SCOPES];
  const scopes = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name = '', ...rest] = entry.split('=');
      const scope = name.trim();
      const label = rest.join('=').trim() || DEFAULT_PLATFORM_SCOPES.find((known) => known.scope === scope)?.label;
      if (!SCOPE_NAME.test(scope) || scope.length > 100) throw new ConfigError(`PLATFORM_SCOPES entry "${entry}" is not a scope like tasks:read`);
      if (!label) throw new ConfigError(`PLATFORM_SCOPES entry "${scope}" needs a label: ${scope}=What the app can do`);
      return { scope, label };
    });
  if (scopes.length === 0) throw new ConfigError('PLATFORM_SCOPES lists no scope');
  const repeated = scopes.find((entry, index) => scopes.findIndex((other) => other.scope === entry.scope) !== index);
  if (repeated) throw new ConfigError(`PLATFORM_SCOPES lists "${repeated.scope}" twice`);
  return scopes;
}

/** Who may read `/metrics` and where it is served. */
export interface MetricsConfig {
  /** Scrapers send it as a bearer token. */
  token?: string;
  /** A listener of its own serving only `/metrics` (every role, the worker too); `/metrics` then leaves the main port. */
  port?: number;
  host: string;
  /** Whether the main port serves `/metrics`: never in production without a token, never when it has a port of its own. */
  onMainPort: boolean;
}

export interface DatabasePoolConfig {
  /** Streaming replicas the public catalogue reads from (the primary when empty). */
  replicaUrls: string[];
  /** Connections of the ORM's pool (writes, developer API, console, jobs). */
  poolMax: number;
  /** Connections per server of the public catalogue's read pool. */
  cataloguePoolMax: number;
  /** How long a request waits for a busy pool before 503 OVERLOADED. */
  connectionWaitMs: number;
  /** PostgreSQL cancels any statement of the ORM's pool running longer (the request is then 503 OVERLOADED). */
  statementTimeoutMs: number;
  /** Connections of pg-boss's own pool (enqueueing from the API, fetching and completing jobs). */
  jobsPoolMax: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `API_KEY_SECRETS` is `id:secret[,id:secret…]`; the first one signs. */
function parseApiKeySecrets(raw: string | undefined, env: AppEnv): ApiKeySecret[] {
  if (!raw) {
    if (env === 'production') throw new ConfigError('API_KEY_SECRETS is required when APP_ENV=production');
    return [{ id: 'dev', secret: 'development-only-api-key-secret-not-for-production' }];
  }
  return list(raw).map((entry) => {
    const [id, secret] = entry.split(':', 2);
    if (!id || !secret || !/^[A-Za-z0-9_-]{1,32}$/.test(id)) {
      throw new ConfigError('API_KEY_SECRETS must be a comma-separated list of id:secret (id: letters, digits, - or _)');
    }
    if (env === 'production' && secret.length < 32) {
      throw new ConfigError(`API_KEY_SECRETS entry "${id}" must be at least 32 characters in production`);
    }
    return { id, secret };
  });
}

export interface EncryptionKey {
  id: string;
  /** 32 bytes. */
  key: Uint8Array;
}

/**
 * `WEBHOOK_ENCRYPTION_KEYS` is `id:base64[,id:base64…]`, each key 32 random bytes (`openssl rand -base64 32`);
 * the first encrypts. Kept out of the database, so a dump alone cannot recover the secrets it guards.
 */
function parseEncryptionKeys(raw: string | undefined, env: AppEnv): EncryptionKey[] {
  if (!raw) {
    if (env === 'production') throw new ConfigError('WEBHOOK_ENCRYPTION_KEYS is required when APP_ENV=production');
    return [{ id: 'dev', key: new Bun.CryptoHasher('sha256').update('development-only-webhook-encryption-key').digest() }];
  }
  return list(raw).map((entry) => {
    const [id, encoded] = entry.split(':', 2);
    const key = encoded && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : null;
    if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || !key || key.length !== 32) {
      throw new ConfigError('WEBHOOK_ENCRYPTION_KEYS must be a comma-separated list of id:key, each key 32 bytes in base64');
    }
    return { id, key: new Uint8Array(key) };
  });
}

/** In production the token verifier is reached over TLS only: the introspection client secret, and the keys, must not travel in clear. */
function assertHttpsInProduction(name: 'OAUTH_JWKS_URL' | 'OAUTH_INTROSPECTION_URL', url: string | undefined, appEnv: AppEnv): void {
  if (appEnv === 'production' && url !== undefined && !/^https:\/\//i.test(url)) {
    throw new ConfigError(`${name} must be an https:// URL in production`);
  }
}

function parseOAuth(env: Env, appEnv: AppEnv): OAuthConfig {
  const allowedClients = list(env.OAUTH_ALLOWED_CLIENTS);
  assertHttpsInProduction('OAUTH_JWKS_URL', env.OAUTH_JWKS_URL, appEnv);
  assertHttpsInProduction('OAUTH_INTROSPECTION_URL', env.OAUTH_INTROSPECTION_URL, appEnv);
  if (env.OAUTH_JWKS_URL) {
    if (!env.OAUTH_ISSUER || !env.OAUTH_AUDIENCE) {
      throw new ConfigError('OAUTH_JWKS_URL needs OAUTH_ISSUER and OAUTH_AUDIENCE');
    }
    if (allowedClients.length === 0) throw new ConfigError('OAUTH_ALLOWED_CLIENTS must name at least one client');
    return { mode: 'jwks', jwksUrl: env.OAUTH_JWKS_URL, issuer: env.OAUTH_ISSUER, audience: env.OAUTH_AUDIENCE, allowedClients };
  }
  if (env.OAUTH_INTROSPECTION_URL) {
    if (allowedClients.length === 0) throw new ConfigError('OAUTH_ALLOWED_CLIENTS must name at least one client');
    return {
      mode: 'introspection',
      introspectionUrl: env.OAUTH_INTROSPECTION_URL,
      clientId: env.OAUTH_INTROSPECTION_CLIENT_ID,
      clientSecret: env.OAUTH_INTROSPECTION_CLIENT_SECRET,
      allowedClients,
    };
  }
  if (appEnv === 'production') {
    throw new ConfigError('APP_ENV=production needs a token verifier: OAUTH_JWKS_URL or OAUTH_INTROSPECTION_URL');
  }
  return { mode: 'dev', allowedClients: allowedClients.length > 0 ? allowedClients : ['marketplace-dev'] };
}

/** Each `RATE_LIMITS` name, the setting it fills and its default per minute. */
const RATE_LIMIT_NAMES = {
  developer: ['developerPerMinute', 600],
  public: ['publicReadsPerMinute', 1200],
  installs: ['installsPerMinute', 300],
  'failed-auth': ['failedAuthPerMinute', 30],
  signin: ['signInFailuresPerMinute', 5],
  keys: ['keyCreationsPerMinute', 10],
  submissions: ['submissionsPerMinute', 10],
  revisions: ['revisionsPerMinute', 10],
  'webhook-sends': ['webhookSendsPerMinute', 10],
  exchanges: ['exchangeFailuresPerMinute', 10],
} as const satisfies Record<string, readonly [keyof RateLimitConfig, number]>;

const RATE_LIMITS_EXAMPLE = Object.entries(RATE_LIMIT_NAMES)
  .map(([name, [, perMinute]]) => `${name}=${perMinute}`)
  .join(',');

/** `RATE_LIMITS=off`, or a list like `developer=600,public=1200` (0 disables one; unnamed ones keep their defaults). */
function parseRateLimits(raw: string | undefined): RateLimitConfig {
  const off = raw?.trim() === 'off';
  const limits = Object.fromEntries(
    Object.values(RATE_LIMIT_NAMES).map(([key, perMinute]) => [key, off ? 0 : perMinute]),
  ) as unknown as RateLimitConfig;
  if (!raw || off) return limits;
  for (const entry of list(raw)) {
    const [name, value] = entry.split('=', 2);
    const known = name && Object.hasOwn(RATE_LIMIT_NAMES, name) ? RATE_LIMIT_NAMES[name as keyof typeof RATE_LIMIT_NAMES] : undefined;
    if (!known || !value || !/^[0-9]+$/.test(value)) {
      throw new ConfigError(`RATE_LIMITS must be "off" or a list like ${RATE_LIMITS_EXAMPLE}`);
    }
    limits[known[0]] = Number(value);
  }
  return limits;
}

function parseProxies(raw: string | undefined): string[] {
  const entries = list(raw);
  const bad = entries.find((entry) => parseCidr(entry) === null);
  if (bad !== undefined) throw new ConfigError(`TRUSTED_PROXIES entry "${bad}" is not an IP address or CIDR range`);
  return entries;
}

/** `CORS_ORIGINS`: `*`, or origins such as `https://app.example.com` (scheme, host and port only). */
function parseCorsOrigins(raw: string | undefined): string[] {
  const origins = list(raw);
  if (origins.length === 1 && origins[0] === '*') return origins;
  const bad = origins.find((origin) => !URL.canParse(origin) || new URL(origin).origin !== origin);
  if (bad !== undefined) throw new ConfigError(`CORS_ORIGINS entry "${bad}" is not an origin like https://app.example.com (or use * alone)`);
  return origins;
}

/** `PUBLIC_URL`: an http(s) URL without query or fragment; a trailing slash is dropped. */
function parsePublicUrl(raw: string | undefined, port: number): string {
  if (raw === undefined) return `http://localhost:${port}`;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(
      `PUBLIC_URL must be an http:// or https:// URL without query, fragment or credentials, such as https://marketplace.example.com (got "${raw}")`,
    );
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** `MAIL_FROM` is `address`, `Display Name <address>` or `"Display, Name" <address>`, on one line. */
const MAIL_ADDRESS = String.raw`[^\s<>@",;]+@[^\s<>@",;]+\.[^\s<>@",;]+`;
const MAIL_FROM_FORMS = new RegExp(String.raw`^(?:${MAIL_ADDRESS}|[^<>\r\n@",;]+ <${MAIL_ADDRESS}>|"[^"\r\n]+" <${MAIL_ADDRESS}>)$`);

function parseMailFrom(raw: string | undefined): string {
  const from = raw?.trim() ?? 'App Marketplace <no-reply@marketplace.local>';
  if (!MAIL_FROM_FORMS.test(from)) {
    throw new ConfigError(`MAIL_FROM must be an address or "Display Name <address>" (got "${raw}")`);
  }
  return from;
}

const UNIT_SECONDS = { s: 1, m: 60, h: 3_600, d: 86_400 } as const;

/**
 * Each age has a floor below which it would break something: the current rate-limit window, the
 * e-mail record the key-expiry scan relies on for 7 days, a mirror a check has just stored.
 */
const RETENTION: Record<keyof RetentionConfig, { variable: keyof Env; fallback: string; floor: string; why: string }> = {
  rateLimits: { variable: 'RETENTION_RATE_LIMITS', fallback: '1h', floor: '2m', why: 'windows are one minute long' },
  jobs: { variable: 'RETENTION_JOBS', fallback: '7d', floor: '1h', why: 'finished jobs are how failures are investigated' },
  deadLetters: { variable: 'RETENTION_DEAD_LETTERS', fallback: '30d', floor: '1d', why: 'dead letters wait for an operator' },
  emails: { variable: 'RETENTION_EMAILS', fallback: '90d', floor: '8d', why: 'the key-expiry reminder is deduplicated by it for 7 days' },
  assets: { variable: 'RETENTION_ASSETS', fallback: '7d', floor: '1h', why: 'a check stores an image before anything refers to it' },
  webhooks: { variable: 'RETENTION_WEBHOOKS', fallback: '30d', floor: '8d', why: 'the key-expiry event is deduplicated by it for 7 days' },
};

const seconds = (duration: string) => Number(duration.slice(0, -1)) * UNIT_SECONDS[duration.at(-1) as keyof typeof UNIT_SECONDS];

function parseRetention(env: Env): RetentionConfig {
  const entries = Object.entries(RETENTION).map(([key, rule]) => {
    const value = seconds((env[rule.variable] as string | undefined) ?? rule.fallback);
    if (value < seconds(rule.floor)) throw new ConfigError(`${rule.variable} must be at least ${rule.floor}: ${rule.why}`);
    return [key, value];
  });
  return Object.fromEntries(entries) as RetentionConfig;
}

/** Loopback, private (RFC 1918, CGNAT, ULA) and link-local addresses: where a listener without a token may be bound. */
const INTERNAL_ADDRESSES = addressSet(
  ['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '::1/128', 'fc00::/7', 'fe80::/10'].map(
    (range) => parseCidr(range)!,
  ),
);

function parseMetrics(env: Env, appEnv: AppEnv, mainPort: number): MetricsConfig {
  const production = appEnv === 'production';
  const token = env.METRICS_TOKEN;
  if (token !== undefined && production && token.length < 32) {
    throw new ConfigError('METRICS_TOKEN must be at least 32 characters in production');
  }
  const host = env.METRICS_HOST ?? '127.0.0.1';
  if (ipFamily(host) === null) throw new ConfigError(`METRICS_HOST must be an IP address (got "${host}")`);
  const port = env.METRICS_PORT === undefined ? undefined : Number(env.METRICS_PORT);
  if (port !== undefined && (port < 1 || port > 65_535 || port === mainPort)) {
    throw new ConfigError(`METRICS_PORT must be a port from 1 to 65535 other than PORT (got "${env.METRICS_PORT}")`);
  }
  // Without a token, the separate listener is the only protection: it must not face the internet.
  if (port !== undefined && production && token === undefined && !INTERNAL_ADDRESSES.has(host)) {
    throw new ConfigError(`METRICS_HOST must be a loopback or private address when METRICS_PORT is set without METRICS_TOKEN (got "${host}")`);
  }
  return { token, port, host, onMainPort: port === undefined && (token !== undefined || !production) };
}

function parseDatabasePools(env: Env): DatabasePoolConfig {
  const replicaUrls = list(env.DATABASE_REPLICA_URLS);
  const bad = replicaUrls.find((url) => !/^postgres(ql)?:\/\//.test(url));
  if (bad !== undefined) throw new ConfigError(`DATABASE_REPLICA_URLS entry "${bad}" is not a postgres:// URL`);
  const positive = (name: keyof Env, fallback: number) => {
    const value = Number(env[name] ?? fallback);
    if (value < 1) throw new ConfigError(`${name} must be at least 1`);
    return value;
  };
  return {
    replicaUrls,
    poolMax: positive('DATABASE_POOL_MAX', 10),
    cataloguePoolMax: positive('CATALOGUE_POOL_MAX', 4),
    connectionWaitMs: positive('CONNECTION_WAIT_MS', 5000),
    statementTimeoutMs: positive('STATEMENT_TIMEOUT_MS', 30_000),
    jobsPoolMax: positive('JOBS_POOL_MAX', 4),
  };
}

/** A whole number of seconds from `min` to `max` (pg-boss refuses a supervision interval under 1 s; a roll-up later than 4 s breaks the 5 s counters contract). */
function secondsWithin(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  const value = Number(raw ?? fallback);
  if (value < min || value > max) throw new ConfigError(`${name} must be from ${min} to ${max} seconds (got "${raw}")`);
  return value;
}

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const env = Object.fromEntries(
    Object.keys(EnvSchema.properties)
      .filter((key) => source[key] !== undefined && source[key] !== '')
      .map((key) => [key, source[key]]),
  );
  const firstError = Value.Errors(EnvSchema, env).First();
  if (firstError) {
    const variable = firstError.path.replace(/^\//, '');
    // A secret's value is never echoed: configuration errors end up in deploy logs and CI output.
    const shown = SECRET_VARIABLES.has(variable) ? 'the value is not shown' : `got "${env[variable]}"`;
    throw new ConfigError(`${variable} is invalid: ${firstError.message} (${shown})`);
  }
  const valid = env as Env;
  const appEnv: AppEnv = valid.APP_ENV ?? 'development';
  const production = appEnv === 'production';

  if (production) {
    if (!valid.DATABASE_URL) throw new ConfigError('DATABASE_URL is required when APP_ENV=production');
    if (!valid.SMTP_URL) throw new ConfigError('SMTP_URL is required when APP_ENV=production');
    if (valid.ALLOW_PRIVATE_FETCH === 'true') {
      throw new ConfigError('ALLOW_PRIVATE_FETCH=true is refused when APP_ENV=production');
    }
  }

  const port = Number(valid.PORT ?? 3000);
  return {
    env: appEnv,
    port,
    host: valid.HOST ?? (production ? '0.0.0.0' : '127.0.0.1'),
    publicUrl: parsePublicUrl(valid.PUBLIC_URL, port),
    databaseUrl: valid.DATABASE_URL,
    dataDir: valid.DATA_DIR ?? '.data',
    logLevel: valid.LOG_LEVEL ?? (appEnv === 'test' ? 'silent' : 'info'),
    passwordHashCost: appEnv === 'test' ? TEST_PASSWORD_HASH_COST : PRODUCTION_PASSWORD_HASH_COST,
    oauth: parseOAuth(valid, appEnv),
    apiKeySecrets: parseApiKeySecrets(valid.API_KEY_SECRETS, appEnv),
    mail: { smtpUrl: valid.SMTP_URL, from: parseMailFrom(valid.MAIL_FROM) },
    allowPrivateFetch: valid.ALLOW_PRIVATE_FETCH === 'true',
    trustedProxies: parseProxies(valid.TRUSTED_PROXIES),
    corsOrigins: parseCorsOrigins(valid.CORS_ORIGINS),
    rateLimits: parseRateLimits(valid.RATE_LIMITS),
    maxBodyBytes: Number(valid.MAX_BODY_BYTES ?? 1_048_576),
    maxAppsPerDeveloper: Number(valid.MAX_APPS_PER_DEVELOPER ?? 100),
    retention: parseRetention(valid),
    webhookEncryptionKeys: parseEncryptionKeys(valid.WEBHOOK_ENCRYPTION_KEYS, appEnv),
    metrics: parseMetrics(valid, appEnv, port),
    database: parseDatabasePools(valid),
    webConcurrency: Math.max(1, Number(valid.WEB_CONCURRENCY ?? 1)),
    jobsSuperviseSeconds: secondsWithin('JOBS_SUPERVISE_SECONDS', valid.JOBS_SUPERVISE_SECONDS, 10, 1, 3_600),
    statsRollUpDelaySeconds: secondsWithin('STATS_ROLL_UP_DELAY_SECONDS', valid.STATS_ROLL_UP_DELAY_SECONDS, 1, 0, 4),
    webhookTimeoutSeconds: secondsWithin('WEBHOOK_TIMEOUT_SECONDS', valid.WEBHOOK_TIMEOUT_SECONDS, 10, 1, 30),
    platformScopes: parsePlatformScopes(valid.PLATFORM_SCOPES),
    trustedPublishing: parseTrustedPublishing(valid, appEnv),
  };
}

const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';

/**
 * Issuers must be https origins with no path, query or fragment (their keys are fetched from
 * `<issuer>/.well-known/openid-configuration`); plain http only outside production with
 * ALLOW_PRIVATE_FETCH, for an issuer served on this machine in tests and local development.
 */
function parseTrustedPublishing(env: Env, appEnv: AppEnv): TrustedPublishingConfig {
  const issuers = env.TRUSTED_PUBLISHING_ISSUERS === undefined ? [GITHUB_ACTIONS_ISSUER] : list(env.TRUSTED_PUBLISHING_ISSUERS);
  const plainHttpAllowed = appEnv !== 'production' && env.ALLOW_PRIVATE_FETCH === 'true';
  for (const issuer of issuers) {
    const url = URL.canParse(issuer) ? new URL(issuer) : null;
    const https = url?.protocol === 'https:' || (plainHttpAllowed && url?.protocol === 'http:');
    if (!url || !https || url.search || url.hash || url.username || issuer.endsWith('/')) {
      throw new ConfigError(
        `TRUSTED_PUBLISHING_ISSUERS entry "${issuer}" must be an https URL without a trailing slash, query or credentials` +
          (plainHttpAllowed ? '' : ' (http only outside production with ALLOW_PRIVATE_FETCH=true)'),
      );
    }
  }
  return { issuers, audience: env.TRUSTED_PUBLISHING_AUDIENCE ?? 'marketplace' };
}
