import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { isIP } from 'node:net';

/**
 * The only module that reads `process.env`. Everything else receives a validated `Config`.
 */

const Bool = Type.Union([Type.Literal('true'), Type.Literal('false')]);
const PositiveIntString = Type.String({ pattern: '^[0-9]+$' });
const UrlString = Type.String({ pattern: '^(postgres|postgresql|https?|smtps?)://' });

const EnvSchema = Type.Object({
  APP_ENV: Type.Optional(Type.Union([Type.Literal('development'), Type.Literal('test'), Type.Literal('production')])),
  PORT: Type.Optional(PositiveIntString),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_URL: Type.Optional(UrlString),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  LOG_LEVEL: Type.Optional(Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error'), Type.Literal('silent')])),
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
  RATE_LIMITS: Type.Optional(Type.String()),
  MAX_BODY_BYTES: Type.Optional(PositiveIntString),
  DATABASE_REPLICA_URLS: Type.Optional(Type.String()),
  DATABASE_POOL_MAX: Type.Optional(PositiveIntString),
  CATALOGUE_POOL_MAX: Type.Optional(PositiveIntString),
  CONNECTION_WAIT_MS: Type.Optional(PositiveIntString),
  WEB_CONCURRENCY: Type.Optional(PositiveIntString),
});
type Env = Static<typeof EnvSchema>;

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
}

export interface MailConfig {
  /** Unset: messages are kept in the dev outbox (the `emails` table) instead of being sent. */
  smtpUrl?: string;
  /** The From header: `address` or `Display Name <address>`. */
  from: string;
}

export interface Config {
  env: AppEnv;
  port: number;
  host: string;
  /** Absent in development and test means "start an embedded PostgreSQL". */
  databaseUrl?: string;
  dataDir: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  oauth: OAuthConfig;
  /** First entry signs new keys; the rest still verify, so a secret can be rotated. */
  apiKeySecrets: ApiKeySecret[];
  mail: MailConfig;
  allowPrivateFetch: boolean;
  trustedProxies: string[];
  rateLimits: RateLimitConfig;
  maxBodyBytes: number;
  database: DatabasePoolConfig;
  /** API processes to run on this machine (sharing the port); 1 is the plain single process. */
  webConcurrency: number;
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

function parseOAuth(env: Env, appEnv: AppEnv): OAuthConfig {
  const allowedClients = list(env.OAUTH_ALLOWED_CLIENTS);
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

/** `RATE_LIMITS=off`, or `developer=600,public=1200,installs=300,failed-auth=30` (0 disables one). */
function parseRateLimits(raw: string | undefined): RateLimitConfig {
  const limits: RateLimitConfig = { developerPerMinute: 600, publicReadsPerMinute: 1200, installsPerMinute: 300, failedAuthPerMinute: 30 };
  if (!raw) return limits;
  if (raw.trim() === 'off') return { developerPerMinute: 0, publicReadsPerMinute: 0, installsPerMinute: 0, failedAuthPerMinute: 0 };
  const keys: Record<string, keyof RateLimitConfig> = {
    developer: 'developerPerMinute',
    public: 'publicReadsPerMinute',
    installs: 'installsPerMinute',
    'failed-auth': 'failedAuthPerMinute',
  };
  for (const entry of list(raw)) {
    const [name, value] = entry.split('=', 2);
    const key = name ? keys[name] : undefined;
    if (!key || !value || !/^[0-9]+$/.test(value)) {
      throw new ConfigError('RATE_LIMITS must be "off" or a list like developer=600,public=1200,installs=300,failed-auth=30');
    }
    limits[key] = Number(value);
  }
  return limits;
}

export interface CidrRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** `10.0.0.0/8`, `fd00::/8` or a single address; null for anything else. */
export function parseCidr(entry: string): CidrRange | null {
  const [address = '', rawPrefix] = entry.trim().split('/', 2);
  const version = isIP(address);
  if (version === 0) return null;
  const maxPrefix = version === 6 ? 128 : 32;
  const prefix = rawPrefix === undefined ? maxPrefix : /^\d{1,3}$/.test(rawPrefix) ? Number(rawPrefix) : Number.NaN;
  if (!(prefix >= 0 && prefix <= maxPrefix)) return null;
  return { address: address.toLowerCase(), prefix, family: version === 6 ? 'ipv6' : 'ipv4' };
}

function parseProxies(raw: string | undefined): string[] {
  const entries = list(raw);
  const bad = entries.find((entry) => parseCidr(entry) === null);
  if (bad !== undefined) throw new ConfigError(`TRUSTED_PROXIES entry "${bad}" is not an IP address or CIDR range`);
  return entries;
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
  };
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
    throw new ConfigError(`${variable} is invalid: ${firstError.message} (got "${env[variable]}")`);
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

  return {
    env: appEnv,
    port: Number(valid.PORT ?? 3000),
    host: valid.HOST ?? (production ? '0.0.0.0' : '127.0.0.1'),
    databaseUrl: valid.DATABASE_URL,
    dataDir: valid.DATA_DIR ?? '.data',
    logLevel: valid.LOG_LEVEL ?? (appEnv === 'test' ? 'silent' : 'info'),
    oauth: parseOAuth(valid, appEnv),
    apiKeySecrets: parseApiKeySecrets(valid.API_KEY_SECRETS, appEnv),
    mail: { smtpUrl: valid.SMTP_URL, from: parseMailFrom(valid.MAIL_FROM) },
    allowPrivateFetch: valid.ALLOW_PRIVATE_FETCH === 'true',
    trustedProxies: parseProxies(valid.TRUSTED_PROXIES),
    rateLimits: parseRateLimits(valid.RATE_LIMITS),
    maxBodyBytes: Number(valid.MAX_BODY_BYTES ?? 1_048_576),
    database: parseDatabasePools(valid),
    webConcurrency: Math.max(1, Number(valid.WEB_CONCURRENCY ?? 1)),
  };
}
