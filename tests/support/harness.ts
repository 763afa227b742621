import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig, type Role } from '../../src/config.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { startRuntime, type Runtime } from '../../src/runtime.ts';
import { mintDevToken } from '../../src/modules/identity/platform-identity.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import type { AppContext } from '../../src/app-context.ts';
import { cloneTestDatabase, dropTestDatabase } from './database.ts';
import { captureLogLine, rememberSecret, rememberSecretsIn } from './suite-log.ts';
import { spawnCli } from './cli.ts';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is (for malformed JSON and similar). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: App;
  ctx: AppContext;
  runtime: Runtime;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<HttpResult<T>>;
  /** A dev-identity platform token for `subject`. */
  token(subject: string, extra?: { clientId?: string; expiresIn?: string; email?: string; emailVerified?: boolean }): Promise<string>;
  sql<T = any>(query: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** A whole service (HTTP app, ORM, pg-boss, workers) on its own fresh database. */
export interface TestAppOptions {
  /** Receives every log line (at debug level) instead of discarding them. */
  logLines?: string[];
  /** Use env.DATABASE_URL as it is (migrated on start, never dropped) instead of a clone of the template. */
  ownDatabase?: boolean;
  /** `api` runs no workers in the test process (another process works the jobs); default `all`. */
  role?: Role;
}

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const databaseUrl = options.ownDatabase && env.DATABASE_URL ? env.DATABASE_URL : await cloneTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-data-'));
  // Every request in a test comes from 127.0.0.1, so limits are off unless a test sets RATE_LIMITS itself.
  // Counters roll up at once (D211): the files that prove the delay's batching, or that need a
  // production-like pace, set the production delay themselves.
  const config = loadConfig({
    APP_ENV: 'test',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    RATE_LIMITS: 'off',
    STATS_ROLL_UP_DELAY_SECONDS: '0',
    ...env,
  });
  const logger = capturingLogger(options.logLines);
  for (const { secret } of config.apiKeySecrets) rememberSecret(secret);
  if (config.oauth.mode === 'introspection') rememberSecret(config.oauth.clientSecret);
  const runtime = await startRuntime(config, logger, { role: options.role ?? 'all' });
  const app = createApp(runtime.ctx);

  const call: TestApp['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    rememberSecret(options.token);
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    } else if (body !== undefined) {
      headers['content-type'] ??= 'application/json';
    }
    // An absolute URL (a mirrored copy's, say) is asked of this app as it is.
    const url = /^https?:\/\//.test(path) ? path : `http://localhost${path}`;
    const response = await app.handle(new Request(url, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Non-JSON bodies (HTML) are returned as text.
    }
    rememberSecretsIn(parsed);
    return { status: response.status, body: parsed as any, headers: response.headers };
  };

  const testApp: TestApp = {
    app,
    ctx: runtime.ctx,
    runtime,
    call,
    token: async (subject, extra = {}) => {
      const token = await mintDevToken(config.oauth, dataDir, { subject, ...extra });
      rememberSecret(token);
      return token;
    },
    sql: (query, params = []) => runtime.ctx.orm.em.fork().execute(query, params as unknown[]),
    async close() {
      await runtime.stop();
      if (!options.ownDatabase) await dropTestDatabase(databaseUrl);
      letGo(testApp);
    },
  };
  return testApp;
}

/**
 * Every service logs at debug into the suite's capture, which is searched for secrets at the end
 * of the run. Made apart from `createTestApp`: a closure shares its maker's scope, and the run keeps
 * loggers it has seen (hidden classes hold them), so one made there kept the whole service alive.
 */
function capturingLogger(logLines: string[] | undefined) {
  return createLogger('debug', {}, (line) => {
    captureLogLine(line);
    logLines?.push(line);
  });
}

/**
 * A test file's module keeps its variables (its `t`) for the rest of the run, and with them the
 * whole service it started: ~6 MB a file, a heap past 1 GB by the suite's end, which every full
 * collection then walks. A closed app lets go of the service (its closures, which share the
 * scope that holds it, included); using it afterwards throws.
 */
function letGo(testApp: TestApp): void {
  const closed = async () => {
    throw new Error('this test app is closed');
  };
  Object.assign(testApp, { app: undefined, ctx: undefined, runtime: undefined, call: closed, token: closed, sql: closed, close: async () => {} });
}

/**
 * The same service listening on 127.0.0.1 at a free port, for a real browser. Stopped by the
 * returned function (before `close()`).
 */
export function listen(t: TestApp): { baseUrl: string; stop(): Promise<void> } {
  t.app.listen({ hostname: '127.0.0.1', port: 0 });
  const port = t.app.server?.port;
  if (!port) throw new Error('the test server did not start listening');
  return { baseUrl: `http://127.0.0.1:${port}`, stop: async () => void (await t.app.stop(true)) };
}

let developerCounter = 0;

export interface TestDeveloper {
  id: string;
  platformUserId: string;
  email: string;
  oauthToken: string;
}

/** Registers a developer over HTTP; `verified` also runs the administrative verification. */
export async function registerDeveloper(t: TestApp, options: { verified?: boolean; name?: string } = {}): Promise<TestDeveloper> {
  developerCounter += 1;
  const platformUserId = `user-${developerCounter}-${crypto.randomUUID().slice(0, 8)}`;
  const email = `${platformUserId}@example.com`;
  const oauthToken = await t.token(platformUserId);
  const response = await t.call('POST', '/api/dev/register', {
    token: oauthToken,
    body: { name: options.name ?? `Developer ${developerCounter}`, email, platformUserId },
  });
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${JSON.stringify(response.body)}`);
  if (options.verified ?? true) await transitionDeveloper({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs }, response.body.id, 'verify', CLI_ACTOR);
  return { id: response.body.id, platformUserId, email, oauthToken };
}

export const ALL_SCOPES = ['APP_CREATE', 'APP_READ', 'APP_UPDATE', 'APP_DELETE', 'ANALYTICS_READ'];

/** Mints an API key with the OAuth token and returns the full key. */
export async function mintKey(t: TestApp, developer: TestDeveloper, scopes: string[] = ALL_SCOPES, extra: object = {}): Promise<string> {
  const response = await t.call('POST', '/api/dev/api-keys', {
    token: developer.oauthToken,
    body: { name: 'test key', scopes, ...extra },
  });
  if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.key;
}

/**
 * Runs `bun run cli …` as an operator would, against this app's database, with a clean
 * environment plus `env`; fails the test unless it exits 0, and returns its trimmed stdout.
 */
export async function runCli(t: TestApp, args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout, stderr, exitCode } = await spawnCli(args, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    APP_ENV: 'test',
    DATABASE_URL: t.runtime.databaseUrl,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'marketplace-cli-')),
    LOG_LEVEL: 'error',
    ...env,
  });
  if (exitCode !== 0) throw new Error(`cli ${args.join(' ')} exited ${exitCode}: ${stderr}`);
  return stdout.trim();
}
