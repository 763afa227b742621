import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { TSchema } from '@sinclair/typebox';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp } from '../apps/fixtures.ts';

/**
 * A bad query parameter is named in the error, whichever route and whichever kind of parameter:
 * `GET /api/apps?limit=0` once answered `{"path": "property"}`, because Elysia's conversion of
 * numeric query parameters loses the parameter's name.
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
}, 30_000);
afterAll(() => t.close());

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
    const path = route.path.replace(':slug', slug).replace(':id', appId).replace(/:[a-zA-Z]+/g, crypto.randomUUID());
    for (const [name, schema] of Object.entries(query.properties as Record<string, TSchema>)) {
      const value = badValue(schema);
      if (value === null) continue;
      const response = await get(`${path}?${name}=${encodeURIComponent(value)}`);
      expect({ route: route.path, name, status: response.status }).toEqual({ route: route.path, name, status: 400 });
      expect({ route: route.path, paths: response.body.errors.map((error: { path: string }) => error.path) }).toEqual({ route: route.path, paths: [name] });
      checked.push(`${route.path}?${name}`);
    }
  }
  // The catalogue, the owner's lists, reviews and webhook deliveries at least.
  expect(checked).toEqual(
    expect.arrayContaining(['/api/apps?limit', '/api/apps?page', '/api/apps/featured/list?limit', '/api/dev/apps?limit', '/api/dev/webhooks/:id/deliveries?status']),
  );
});
