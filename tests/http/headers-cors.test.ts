import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { loadConfig } from '../../src/config.ts';
import { createCors } from '../../src/http/cors.ts';
import { approvedApp } from '../apps/fixtures.ts';

/** Headers every response carries, and cross-origin access for the public catalogue API only. */
const FRONTEND = 'https://app.example.com';
let t: TestApp;
let key: string;
let slug: string;

beforeAll(async () => {
  t = await createTestApp({ CORS_ORIGINS: `${FRONTEND}, https://other.example.com` });
  key = await mintKey(t, await registerDeveloper(t));
  slug = (await approvedApp(t, key)).slug;
});
afterAll(() => t.close());

describe('headers on every response', () => {
  test('nosniff, no referrer and a CSP that loads and frames nothing, on answers and errors alike; pages set their own', async () => {
    for (const [path, token] of [
      ['/api/apps', undefined],
      [`/api/apps/${slug}`, undefined],
      ['/api/apps/no-such-app', undefined],
      ['/api/dev/me', key],
      ['/api/dev/me', undefined],
      ['/livez', undefined],
      ['/swagger/json', undefined],
      ['/nowhere', undefined],
    ] as const) {
      const response = await t.call('GET', path, { token });
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(response.headers.get('content-security-policy'), path).toBe("default-src 'none'; frame-ancestors 'none'");
    }
    const ui = await t.call('GET', '/swagger');
    expect(ui.headers.get('content-security-policy')).toContain("script-src 'self'");
    const login = await t.call('GET', '/admin/login');
    expect(login.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(login.headers.get('content-security-policy')).not.toContain('unsafe-inline');
  });
});

describe('CORS', () => {
  const fromOrigin = (method: string, path: string, origin: string, extra: Record<string, string> = {}) =>
    t.call(method, path, { headers: { origin, ...extra } });

  test('a listed origin may read the public catalogue, errors included; the answer varies by Origin', async () => {
    const list = await fromOrigin('GET', '/api/apps', FRONTEND);
    expect(list.headers.get('access-control-allow-origin')).toBe(FRONTEND);
    expect(list.headers.get('vary')).toContain('Origin');
    const missing = await fromOrigin('GET', '/api/apps/no-such-app', FRONTEND);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(FRONTEND);
  });

  test("every public catalogue answer varies by Origin, with or without one and from any origin, so a cache never hands one origin's variant to another", async () => {
    for (const path of ['/api/apps', `/api/apps/${slug}`, '/api/apps/no-such-app']) {
      for (const headers of [{}, { origin: FRONTEND }, { origin: 'https://evil.example' }] as Record<string, string>[]) {
        // Twice: the second answer may come from the prebuilt cache.
        for (let i = 0; i < 2; i += 1)
          expect((await t.call('GET', path, { headers })).headers.get('vary'), `${path} ${JSON.stringify(headers)}`).toContain('Origin');
      }
    }
    expect((await t.call('GET', '/api/dev/me', { token: key })).headers.get('vary') ?? '').not.toContain('Origin');
    const request = new Request('http://localhost/api/apps');
    expect(createCors(['*']).headersFor(request, '/api/apps')).toEqual({ vary: 'Origin' });
    expect(createCors([]).headersFor(request, '/api/apps')).toEqual({});
  });

  test('an unlisted origin, the developer API and the console get no CORS headers at all', async () => {
    expect((await fromOrigin('GET', '/api/apps', 'https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
    const dev = await t.call('GET', '/api/dev/me', { token: key, headers: { origin: FRONTEND } });
    expect(dev.status).toBe(200);
    expect(dev.headers.get('access-control-allow-origin')).toBeNull();
    expect((await fromOrigin('GET', '/admin/login', FRONTEND)).headers.get('access-control-allow-origin')).toBeNull();
  });

  test('a preflight for an install is answered; one for the developer API is not', async () => {
    const preflight = await fromOrigin('OPTIONS', `/api/apps/${slug}/install`, FRONTEND, {
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, authorization',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(FRONTEND);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(preflight.headers.get('x-request-id')).toBeString();
    const refused = await fromOrigin('OPTIONS', '/api/dev/apps', FRONTEND, { 'access-control-request-method': 'POST' });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const stranger = await fromOrigin('OPTIONS', '/api/apps', 'https://evil.example', { 'access-control-request-method': 'GET' });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('CORS_ORIGINS takes origins or * alone; anything else stops the start-up', () => {
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    expect(loadConfig({}).corsOrigins).toEqual([]);
    for (const bad of ['https://app.example.com/path', 'app.example.com', '*, https://app.example.com']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS entry/);
    }
  });
});
