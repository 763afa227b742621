import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { MikroORM } from '@mikro-orm/postgresql';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { ormOptions } from '../../src/db/orm.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createCatalogueReaders } from '../../src/db/read-pools.ts';
import { createSqlPool } from '../../src/db/sql-pool.ts';
import { createMailer } from '../../src/modules/notifications/mailer.ts';
import { createJobQueue } from '../../src/lib/job-queue.ts';
import { createTokenVerifier } from '../../src/modules/identity/platform-identity.ts';
import { createBoss } from '../../jobs/queues.ts';
import { generateKey } from '../../src/modules/api-keys/key-format.ts';
import type { AppContext } from '../../src/app-context.ts';
import { createInFlight } from '../../src/lib/in-flight.ts';
import { dereferenced } from '../support/openapi.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { nextRequestId } from '../../src/http/lifecycle.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ MAX_BODY_BYTES: '2048' });
});
afterAll(() => t.close());

describe('request ids', () => {
  test('every response carries X-Request-Id; a sane one sent by the client is echoed', async () => {
    const generated = await t.call('GET', '/livez');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await t.call('GET', '/livez', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(echoed.headers.get('x-request-id')).toBe('trace-abc.123');
    const error = await t.call('GET', '/nowhere', { headers: { 'x-request-id': 'trace-err' } });
    expect(error.headers.get('x-request-id')).toBe('trace-err');
    expect(error.body.requestId).toBe('trace-err');
    const hostile = await t.call('GET', '/livez', { headers: { 'x-request-id': 'x'.repeat(500) } });
    expect(hostile.headers.get('x-request-id')).not.toBe('x'.repeat(500));
  });

  test('generated ids are UUID-shaped, distinct and in order, past the points where the counter carries', () => {
    const ids = Array.from({ length: 10_000 }, () => nextRequestId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('errors are problem+json', () => {
  test('an unknown route is 404 NOT_FOUND', async () => {
    const response = await t.call('GET', '/api/nothing-here');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.body).toMatchObject({ status: 404, code: 'NOT_FOUND', title: 'Not Found' });
    // Absolute, under PUBLIC_URL (its default here), leading to the page that explains the code.
    expect(response.body.type).toBe('http://localhost:3000/problems/NOT_FOUND');
  });

  test('malformed JSON is 400 VALIDATION_FAILED, never 422', async () => {
    const response = await t.call('POST', '/api/dev/register', { token: await t.token('u'), rawBody: '{"name": ' });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  test('an oversized body is 413 and changes nothing', async () => {
    const body = JSON.stringify({
      name: 'Big',
      email: 'big@example.com',
      platformUserId: 'big',
      bio: 'x'.repeat(1990),
      websiteUrl: `https://example.com/${'y'.repeat(200)}`,
    });
    const response = await t.call('POST', '/api/dev/register', {
      token: await t.token('big'),
      rawBody: body,
      // A Request built in-process has no Content-Length; a real client always sends one (or Bun enforces the limit itself).
      headers: { 'content-length': String(body.length) },
    });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await t.sql(`select 1 from developers where platform_user_id = 'big'`)).toHaveLength(0);
  });

  test('an unexpected error is 500 INTERNAL with no internals', async () => {
    const app = createApp(t.ctx).get('/explode', () => {
      throw new Error('select secret from credentials -- stack detail');
    });
    const response = await app.handle(new Request('http://localhost/explode'));
    const body = (await response.json()) as { code: string };
    expect(response.status).toBe(500);
    expect(body.code).toBe('INTERNAL');
    expect(JSON.stringify(body)).not.toContain('secret');
    expect(JSON.stringify(body)).not.toContain('stack');
  });
});

describe('OpenAPI', () => {
  test('/swagger/json documents every route with a bearer scheme; /swagger serves the UI', async () => {
    const document = dereferenced((await t.call('GET', '/swagger/json')).body);
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const path of ['/api/dev/register', '/api/dev/me', '/api/dev/api-keys', '/api/dev/api-keys/{id}', '/livez', '/readyz']) {
      expect(document.paths[path]).toBeDefined();
    }
    const create = document.paths['/api/dev/api-keys'].post;
    expect(create.security).toEqual([{ bearer: [] }]);
    expect(create.requestBody.content['application/json'].schema.properties.scopes).toBeDefined();
    expect(create.responses['201']).toBeDefined();
    expect(create.responses['403']).toBeDefined();
    const ui = await t.app.handle(new Request('http://localhost/swagger'));
    expect(ui.status).toBe(200);
    expect(ui.headers.get('content-type')).toContain('text/html');
  });
});

describe('health', () => {
  test('/livez and /readyz answer when the database is up', async () => {
    expect((await t.call('GET', '/livez')).body).toEqual({ status: 'ok' });
    expect((await t.call('GET', '/readyz')).body).toEqual({ status: 'ready' });
  });
});

describe('database unavailable', () => {
  /** An app whose database address accepts connections and then never answers. */
  async function appOnSilentDatabase() {
    const silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const url = `postgres://nobody@127.0.0.1:${silent.port}/nothing`;
    const config = loadConfig({ APP_ENV: 'test', DATABASE_URL: url, DATA_DIR: '/tmp' });
    const logger = createLogger('silent');
    const orm = await MikroORM.init(ormOptions(url, logger, config.database));
    const boss = createBoss(url, logger, { supervise: false, migrate: false });
    const ctx: AppContext = {
      config,
      orm,
      boss,
      jobs: createJobQueue(boss),
      verifier: createTokenVerifier(config.oauth, '/tmp', logger),
      mailer: createMailer(config.mail),
      logger,
      catalogueReaders: createCatalogueReaders(url, [], { max: 2, waitMs: 5000, statementTimeoutMs: 10_000 }, logger),
      installWriter: createSqlPool('installs', url, { max: 1, waitMs: 5000, statementTimeoutMs: 10_000 }, logger),
      requests: createInFlight(),
    };
    return { app: createApp(ctx), close: () => silent.stop(true) };
  }

  test('API requests answer 503 UNAVAILABLE within 2 s, and /readyz says not ready', async () => {
    const { app, close } = await appOnSilentDatabase();
    try {
      const started = performance.now();
      const response = await app.handle(new Request('http://localhost/api/dev/me', { headers: { authorization: `Bearer ${generateKey()}` } }));
      const elapsed = performance.now() - started;
      expect(response.status).toBe(503);
      expect(((await response.json()) as { code: string }).code).toBe('UNAVAILABLE');
      expect(elapsed).toBeLessThan(2000);
      // The public catalogue reads through its own pool, with the same answer.
      const catalogueStarted = performance.now();
      const catalogue = await app.handle(new Request('http://localhost/api/apps?limit=3'));
      expect(catalogue.status).toBe(503);
      expect(((await catalogue.json()) as { code: string }).code).toBe('UNAVAILABLE');
      expect(performance.now() - catalogueStarted).toBeLessThan(2000);
      const ready = await app.handle(new Request('http://localhost/readyz'));
      expect(ready.status).toBe(503);
      expect((await app.handle(new Request('http://localhost/livez'))).status).toBe(200);
    } finally {
      close();
    }
  });
});
