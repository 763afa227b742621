import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { TSchema } from '@sinclair/typebox';
import { Elysia, t as schema } from 'elysia';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { httpLifecycle } from '../../src/http/lifecycle.ts';
import { approvedApp, completeApp, minimalApp } from '../apps/fixtures.ts';

/**
 * Input that is merely hostile: deep or huge JSON, text PostgreSQL cannot store, bodies that are
 * not JSON, repeated and non-decimal query parameters, wrong methods. Each is refused with a
 * clear 4xx at once, and changes nothing.
 */
let t: TestApp;
let key: string;
let slug: string;
let appId: string;

beforeAll(async () => {
  t = await createTestApp();
  const developer = await registerDeveloper(t);
  key = await mintKey(t, developer);
  const app = await approvedApp(t, key);
  slug = app.slug;
  appId = app.id;
});
afterAll(() => t.close());

const rowCounts = async () =>
  (
    await t.sql(`select (select count(*) from apps)::int as apps, (select count(*) from installs)::int as installs,
                        (select count(*) from api_keys)::int as keys, (select count(*) from app_revisions)::int as revisions,
                        (select sum(version) from apps)::int as versions`)
  )[0];

/** `{"foo":[[[…]]]}` nested `levels` deep: about 2 bytes a level. */
const deeplyNested = (field: string, levels: number) => `{"${field}":${'['.repeat(levels)}${']'.repeat(levels)}}`;

describe('deeply nested and oversized JSON', () => {
  test('30,000 levels is 400 VALIDATION_FAILED at once, on public, developer and key routes alike', async () => {
    const before = await rowCounts();
    const newKeyOwner = await registerDeveloper(t, { verified: false });
    const cases = [
      { method: 'POST', path: `/api/apps/${slug}/install`, field: 'foo', token: undefined },
      { method: 'POST', path: '/api/dev/apps', field: 'screenshots', token: key },
      { method: 'PUT', path: `/api/dev/apps/${appId}`, field: 'screenshots', token: key },
      { method: 'POST', path: '/api/dev/api-keys', field: 'scopes', token: newKeyOwner.oauthToken },
    ];
    for (const { method, path, field, token } of cases) {
      const body = deeplyNested(field, 30_000);
      expect(body.length).toBeGreaterThan(60_000);
      const started = performance.now();
      const response = await t.call(method, path, { token, rawBody: body });
      const elapsed = performance.now() - started;
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(response.body.detail).toContain('nests deeper than 8 levels');
      // Before the bound, one such body held the event loop for seconds.
      expect(elapsed, `${method} ${path}`).toBeLessThan(500);
    }
    expect(await rowCounts()).toEqual(before);
  });

  test('/livez stays quick while hostile bodies arrive', async () => {
    const hostile = Array.from({ length: 3 }, () => t.call('POST', `/api/apps/${slug}/install`, { rawBody: deeplyNested('foo', 30_000) }));
    const started = performance.now();
    const live = await t.call('GET', '/livez');
    expect(live.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(500);
    expect((await Promise.all(hostile)).map((r) => r.status)).toEqual([400, 400, 400]);
  });

  test('a list or object of more than 100 entries is refused before validation', async () => {
    const scopes = JSON.stringify({ name: 'k', scopes: Array.from({ length: 5_000 }, () => 'APP_READ') });
    const response = await t.call('POST', '/api/dev/api-keys', { token: key, rawBody: scopes });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'body', message: 'holds a list or object of more than 100 entries' }]);
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`f${i}`, i])));
    expect((await t.call('POST', `/api/apps/${slug}/install`, { rawBody: wide })).status).toBe(400);
    // Brackets inside strings are text, not structure.
    const bracketsInText = await t.call('POST', '/api/dev/apps', {
      token: key,
      body: minimalApp({ description: '[[[[[[[[[[[[[[[[[[[[{{{{{{{{{{{{' }),
    });
    expect(bracketsInText.status).toBe(201);
  });
});

describe('text PostgreSQL cannot store', () => {
  const loneSurrogate = '"x\\ud800y"';
  const withField = (template: Record<string, unknown>, field: string) => JSON.stringify(template).replace(`"@${field}@"`, loneSurrogate);

  test('a lone surrogate is 400 in every text field, naming it, and nothing is stored', async () => {
    const before = await rowCounts();
    const developer = await registerDeveloper(t);
    const cases: { method: string; path: string; token?: string; body: string; path_: string }[] = [
      { method: 'POST', path: '/api/dev/apps', token: key, body: withField(minimalApp({ name: '@name@' }), 'name'), path_: 'name' },
      {
        method: 'POST',
        path: '/api/dev/apps',
        token: key,
        body: withField(completeApp({ screenshots: [{ url: 'https://cdn.example.com/a.png', caption: '@caption@' }] }), 'caption'),
        path_: 'screenshots[0].caption',
      },
      { method: 'PUT', path: `/api/dev/apps/${appId}`, token: key, body: withField({ description: '@d@' }, 'd'), path_: 'description' },
      {
        method: 'POST',
        path: `/api/dev/apps/${appId}/revisions`,
        token: key,
        body: withField({ longDescription: '@l@' }, 'l'),
        path_: 'longDescription',
      },
      { method: 'POST', path: '/api/dev/api-keys', token: key, body: withField({ name: '@n@', scopes: ['APP_READ'] }, 'n'), path_: 'name' },
      { method: 'PUT', path: '/api/dev/me', token: developer.oauthToken, body: withField({ bio: '@b@' }, 'b'), path_: 'bio' },
      { method: 'POST', path: `/api/apps/${slug}/install`, body: withField({ installationId: '@i@' }, 'i'), path_: 'installationId' },
      {
        method: 'POST',
        path: `/api/apps/${slug}/reviews`,
        token: developer.oauthToken,
        body: withField({ rating: 5, title: '@t@' }, 't'),
        path_: 'title',
      },
    ];
    for (const c of cases) {
      const response = await t.call(c.method, c.path, { token: c.token, rawBody: c.body });
      expect(response.status, `${c.method} ${c.path}`).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(response.body.errors, `${c.method} ${c.path}`).toEqual([
        { path: c.path_, message: 'contains a lone UTF-16 surrogate, which is not valid text' },
      ]);
    }
    expect(await rowCounts()).toEqual(before);
    expect(await t.sql(`select 1 from developers where bio is not null`)).toEqual([]);
  });

  test('a NUL escape, invalid UTF-8 bytes and control characters in the URL are 400', async () => {
    const nul = await t.call('POST', '/api/dev/apps', { token: key, rawBody: JSON.stringify(minimalApp()).replace('A draft.', 'A\\u0000draft') });
    expect(nul.status).toBe(400);
    expect(nul.body.errors).toEqual([{ path: 'description', message: 'contains a NUL character' }]);
    const bytes = new Uint8Array([...new TextEncoder().encode('{"installationId":"'), 0xed, 0xa0, 0x80, ...new TextEncoder().encode('"}')]);
    const invalid = await t.app.handle(
      new Request(`http://localhost/api/apps/${slug}/install`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes }),
    );
    expect(invalid.status).toBe(400);
    for (const path of ['/api/apps/a%00b', '/api/apps/a%ED%A0%80b', `/api/apps?search=a%00`, `/api/apps?search=%FF`]) {
      const response = await t.call('GET', path);
      expect(response.status, path).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('requests that say what is wrong', () => {
  test('a body that is not JSON is 415 saying JSON is expected', async () => {
    const before = await rowCounts();
    const form = await t.call('POST', '/api/dev/apps', {
      token: key,
      rawBody: 'name=x&description=y',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', detail: expect.stringContaining('application/json') });
    const multipart = new FormData();
    multipart.set('name', 'x');
    const response = await t.app.handle(
      new Request('http://localhost/api/dev/apps', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: multipart }),
    );
    expect(response.status).toBe(415);
    // `curl -d` without -H: a form content type; and a body with no content type at all.
    const untyped = await t.app.handle(new Request(`http://localhost/api/apps/${slug}/install`, { method: 'POST', body: new Blob(['{}']) }));
    expect(untyped.status).toBe(415);
    expect(await rowCounts()).toEqual(before);
    // An empty body needs no content type.
    expect((await t.app.handle(new Request(`http://localhost/api/apps/${slug}/install`, { method: 'POST' }))).status).toBe(201);
  });

  test('a repeated query parameter is 400 naming it', async () => {
    const response = await t.call('GET', '/api/apps?category=UTILITIES&category=BUSINESS');
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe('The query is invalid');
    expect(response.body.errors).toEqual([{ path: 'category', message: 'is given more than once' }]);
  });

  test('numbers in the query are decimal: hex, exponents and padding are 400', async () => {
    for (const limit of ['0x10', '1e1', '%2010', '10.0', '+5', 'Infinity']) {
      const response = await t.call('GET', `/api/apps?limit=${limit}`);
      expect(response.status, limit).toBe(400);
      expect(response.body.errors, limit).toEqual([{ path: 'limit', message: 'must be a whole number from 1 to 100' }]);
    }
    expect((await t.call('GET', '/api/apps?limit=10')).body.pagination.limit).toBe(10);
  });

  test('errors name the field and say in words what is allowed', async () => {
    const query = await t.call('GET', '/api/apps?category=GAMES&featured=maybe');
    expect(query.body.detail).toBe('The query is invalid');
    expect(query.body.errors).toEqual([
      { path: 'category', message: expect.stringMatching(/^must be one of PRODUCTIVITY, UTILITIES, .*, OTHER$/) },
      { path: 'featured', message: 'must be true or false' },
    ]);
    const body = await t.call('POST', '/api/dev/apps', {
      token: key,
      body: { description: 'd', category: 'OTHER', environment: 'prod', logoUrl: 'ftp://x', extra: 1 },
    });
    expect(body.body.detail).toBe('The request body is invalid');
    expect(body.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'name', message: 'is required' },
        { path: 'environment', message: 'must be one of localhost, staging, production' },
        { path: 'logoUrl', message: 'must be an absolute http:// or https:// URL of at most 2,048 characters' },
        { path: 'extra', message: 'is not a known field' },
      ]),
    );
    for (const error of [...query.body.errors, ...body.body.errors]) {
      expect(error.message).not.toMatch(/Expected|kind|\^|\\u|property/);
    }
    const path = await t.call('GET', '/api/dev/apps/not-a-uuid', { token: key });
    expect(path.body).toMatchObject({ detail: 'The path is invalid', errors: [{ path: 'id', message: 'must be a UUID' }] });
  });

  test('a response that fails its own schema is 500 INTERNAL, logged, never blamed on the caller', async () => {
    const lines: string[] = [];
    const { createLogger } = await import('../../src/lib/logger.ts');
    const logger = createLogger('debug', {}, (line) => lines.push(line));
    const app = new Elysia({ normalize: false });
    app
      .use(httpLifecycle({ ...t.ctx, logger }, () => app.routes))
      .get('/broken', () => ({ count: 'many' }) as never, { response: { 200: schema.Object({ count: schema.Integer() }) } });
    const response = await app.handle(new Request('http://localhost/broken'));
    expect(response.status).toBe(500);
    expect(((await response.json()) as { code: string }).code).toBe('INTERNAL');
    await Bun.sleep(20); // the access log line is written after the response
    expect(lines.some((line) => line.includes('request failed'))).toBe(true);
    expect(lines.some((line) => line.includes('"status":500'))).toBe(true);
  });
});

describe('headers and methods', () => {
  test('every response carries nosniff; developer API responses are never stored by caches', async () => {
    for (const [path, token] of [
      ['/api/apps', undefined],
      [`/api/apps/${slug}`, undefined],
      ['/api/apps/nope', undefined],
      ['/livez', undefined],
      ['/swagger', undefined],
      ['/swagger/json', undefined],
      ['/api/dev/apps', key],
      ['/api/dev/api-keys', key],
      ['/api/dev/me', undefined],
    ] as const) {
      const response = await t.call('GET', path, { token });
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      if (path.startsWith('/api/dev/')) expect(response.headers.get('cache-control'), path).toBe('no-store');
    }
    const minted = await t.call('POST', '/api/dev/api-keys', { token: key, body: { name: 'cached?', scopes: ['APP_READ'] } });
    expect(minted.status).toBe(201);
    expect(minted.headers.get('cache-control')).toBe('no-store');
  });

  test('a known path with a wrong method is 405 with Allow; an unknown path stays 404', async () => {
    const cases: [string, string, string][] = [
      ['PATCH', '/api/dev/apps', 'GET, POST'],
      ['DELETE', '/api/apps', 'GET'],
      ['POST', `/api/apps/${slug}`, 'GET'],
      ['GET', `/api/apps/${slug}/install`, 'POST'],
      ['PUT', `/api/dev/apps/${appId}/submit`, 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await t.call(method, path, { token: key });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.body.code).toBe('METHOD_NOT_ALLOWED');
      expect(response.headers.get('allow'), `${method} ${path}`).toBe(allow);
    }
    expect((await t.call('GET', '/api/nothing-here')).status).toBe(404);
  });

  test('the OpenAPI UI comes from the installed package under a CSP, with nothing from a CDN', async () => {
    const page = await t.call('GET', '/swagger');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const csp = page.headers.get('content-security-policy') ?? '';
    // Read as directives: the script sources are exactly what the page may run, and inline script is not among them.
    const directives = new Map(
      csp
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .map(([name = '', ...sources]) => [name, sources]),
    );
    expect(directives.get('script-src')).toContain("'self'");
    expect(directives.get('script-src')).not.toContain("'unsafe-inline'");
    expect(page.body).not.toMatch(/https?:\/\//);
    expect(page.body).not.toMatch(/<script>/);
    for (const src of [...(page.body as string).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)) {
      const asset = await t.call('GET', src);
      expect(asset.status, src).toBe(200);
    }
    expect((await t.call('GET', '/swagger/assets/__proto__')).status).toBe(404);
  });
});

/**
 * A bad query parameter is named in the error, whichever route and whichever kind of parameter:
 * `GET /api/apps?limit=0` once answered `{"path": "property"}`, because Elysia's conversion of
 * numeric query parameters loses the parameter's name.
 */
describe('query errors name their parameter', () => {
  const get = (path: string) => t.call('GET', path, { token: path.startsWith('/api/dev/') ? key : undefined });

  test.each([
    ['/api/apps?limit=0', 'limit'],
    ['/api/apps?limit=101', 'limit'],
    ['/api/apps?page=0', 'page'],
    ['/api/apps?limit=abc', 'limit'],
    ['/api/apps?category=NOPE', 'category'],
    ['/api/apps/featured/list?limit=0', 'limit'],
    ['/api/dev/apps?limit=1000', 'limit'],
    ['/api/dev/apps?page=-1', 'page'],
  ])('GET %s names %s', async (path, parameter) => {
    const response = await get(path);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual([parameter]);
    expect(response.body.detail).toBe('The query is invalid');
  });

  /** A value each kind of query schema refuses, or null when every string is allowed. */
  function badValue(schema: TSchema): string | null {
    if (Array.isArray(schema.enum)) return 'not-one-of-them';
    if (schema.type === 'integer' || schema.type === 'number') return schema.minimum !== undefined ? String(schema.minimum - 1) : 'abc';
    if (schema.type === 'string' && schema.maxLength !== undefined) return 'x'.repeat(schema.maxLength + 1);
    if (Array.isArray(schema.anyOf)) return (schema.anyOf as TSchema[]).map(badValue).find((value) => value !== null) ?? null;
    return null;
  }

  test('every query parameter of every route is named when it is wrong', async () => {
    const checked: string[] = [];
    for (const route of t.app.routes) {
      const query = (route.hooks as { query?: TSchema } | undefined)?.query;
      if (route.method !== 'GET' || !route.path.startsWith('/api/') || !query?.properties) continue;
      const path = route.path
        .replace(':slug', slug)
        .replace(':id', appId)
        .replace(/:[a-zA-Z]+/g, crypto.randomUUID());
      for (const [name, schema] of Object.entries(query.properties as Record<string, TSchema>)) {
        const value = badValue(schema);
        if (value === null) continue;
        const response = await get(`${path}?${name}=${encodeURIComponent(value)}`);
        expect({ route: route.path, name, status: response.status }).toEqual({ route: route.path, name, status: 400 });
        expect({ route: route.path, paths: response.body.errors.map((error: { path: string }) => error.path) }).toEqual({
          route: route.path,
          paths: [name],
        });
        checked.push(`${route.path}?${name}`);
      }
    }
    // The catalogue, the owner's lists, reviews and webhook deliveries at least.
    expect(checked).toEqual(
      expect.arrayContaining([
        '/api/apps?limit',
        '/api/apps?page',
        '/api/apps/featured/list?limit',
        '/api/dev/apps?limit',
        '/api/dev/webhooks/:id/deliveries?status',
      ]),
    );
  });
});
