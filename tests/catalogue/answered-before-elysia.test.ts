import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';
import { BEFORE_ROUTING } from '../../src/http/cacheable.ts';

/**
 * A listening server answers a repeat of a cached catalogue read from its own routes, before
 * Elysia (D190), with everything the routed answer has: the same headers, the client's request id,
 * 304 to a matching `If-None-Match`, CORS, the metrics, and the same read limit.
 */
async function listening(env: Record<string, string> = {}) {
  const t = await createTestApp(env);
  const port = t.app.listen({ port: 0, hostname: '127.0.0.1' }).server!.port;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${port}${path}`, { headers });
  /** GETs the metrics count under a route label: a template for routed ones, "cached before routing" for early ones. */
  const counted = async (route: string) => {
    const metrics = await (await get('/metrics')).text();
    const line = metrics.split('\n').find((l) => l.startsWith(`http_request_duration_seconds_count{method="GET",route="${route}"}`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  };
  const close = async () => {
    await t.app.stop(true);
    await t.close();
  };
  return { t, get, counted, close };
}

/** The headers a client sees, but for the ones that differ between any two answers. */
const headersOf = (response: Response) =>
  Object.fromEntries([...response.headers.entries()].filter(([name]) => !['date', 'content-length', 'x-request-id'].includes(name)));

describe('on a listening server', () => {
  let server: Awaited<ReturnType<typeof listening>>;
  let slug: string;
  beforeAll(async () => {
    server = await listening({ CORS_ORIGINS: 'https://shop.example' });
    slug = (await insertApp(server.t, { developerId: await insertDeveloper(server.t), name: 'Early Bird' })).slug;
  });
  afterAll(() => server.close());

  test('a repeat of each cached read is answered before Elysia, as the routed answer was', async () => {
    const reads = [
      ['/api/apps?limit=5', '/api/apps'],
      [`/api/apps/${slug}`, '/api/apps/:slug'],
      ['/api/apps/featured/list', '/api/apps/featured/list'],
      ['/api/apps/categories/list', '/api/apps/categories/list'],
    ] as const;
    for (const [path, template] of reads) {
      const [routed, early] = [await server.counted(template), await server.counted(BEFORE_ROUTING)];
      const origin = { origin: 'https://shop.example' };
      const first = await server.get(path, origin);
      const repeat = await server.get(path, { ...origin, 'x-request-id': 'client-chosen-id' });
      expect(repeat.status).toBe(200);
      expect(await repeat.text()).toBe(await first.text());
      expect(headersOf(repeat)).toEqual(headersOf(first));
      expect(repeat.headers.get('access-control-allow-origin')).toBe('https://shop.example');
      expect(repeat.headers.get('x-request-id')).toBe('client-chosen-id');
      expect(first.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

      const notModified = await server.get(path, { ...origin, 'if-none-match': first.headers.get('etag')!, 'x-request-id': 'revalidating-id' });
      expect(notModified.status).toBe(304);
      expect(await notModified.text()).toBe('');
      expect(notModified.headers.get('etag')).toBe(first.headers.get('etag'));
      expect(notModified.headers.get('x-request-id')).toBe('revalidating-id');
      expect(notModified.headers.get('access-control-allow-origin')).toBe('https://shop.example');
      // The first went through the route; the repeat and the 304 did not (answered by Elysia's own hook, a
      // listening server had counted them nowhere).
      expect([await server.counted(template), await server.counted(BEFORE_ROUTING)]).toEqual([routed + 1, early + 2]);
    }
  });

  test('text outside ASCII reaches the client as the same UTF-8 bytes, with their length, however it is answered', async () => {
    const name = 'Café ☕ 日本 Notes 🚀';
    const unicode = (await insertApp(server.t, { developerId: await insertDeveloper(server.t), name })).slug;
    for (const path of [`/api/apps/${unicode}`, `/api/apps?limit=100&sort=newest`]) {
      const answers = [await server.get(path), await server.get(path)];
      const bodies = await Promise.all(answers.map(async (answer) => new Uint8Array(await answer.arrayBuffer())));
      expect(bodies[1]).toEqual(bodies[0]!);
      for (const [i, answer] of answers.entries()) {
        expect(answer.headers.get('content-type')).toBe('application/json');
        expect(Number(answer.headers.get('content-length'))).toBe(bodies[i]!.byteLength);
        expect(new TextDecoder().decode(bodies[i])).toContain(`"name":"${name}"`);
      }
    }
  });

  test('what was never answered from the cache still goes through the routes: errors and new targets', async () => {
    const [bySlug, list, early] = [await server.counted('/api/apps/:slug'), await server.counted('/api/apps'), await server.counted(BEFORE_ROUTING)];
    for (let i = 0; i < 2; i += 1) expect((await server.get('/api/apps/no-such-app')).status).toBe(404);
    expect((await server.get('/api/apps?limit=7')).status).toBe(200);
    expect([await server.counted('/api/apps/:slug'), await server.counted('/api/apps'), await server.counted(BEFORE_ROUTING)]).toEqual([
      bySlug + 2,
      list + 1,
      early,
    ]);
  });
});

describe('with a read limit', () => {
  let server: Awaited<ReturnType<typeof listening>>;
  beforeAll(async () => {
    server = await listening({ RATE_LIMITS: 'public=3' });
  });
  afterAll(() => server.close());

  test('reads answered before Elysia count against the same limit, and past it Elysia refuses them', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await server.get('/api/apps/categories/list')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
