import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp } from '../apps/fixtures.ts';

/**
 * Every route against bad input: whatever it is, the answer is a 4xx problem (never a 5xx),
 * and the database is left as it was.
 */
let t: TestApp;
let key: string;
let oauthToken: string;
let appId: string;
let slug: string;

beforeAll(async () => {
  t = await createTestApp({ MAX_BODY_BYTES: '4096' });
  const developer = await registerDeveloper(t);
  oauthToken = developer.oauthToken;
  key = await mintKey(t, developer);
  const app = await approvedApp(t, key);
  appId = app.id;
  slug = app.slug;
});
afterAll(() => t.close());

const TABLES = [
  'developers',
  'api_keys',
  'apps',
  'app_revisions',
  'installs',
  'reviews',
  'app_transitions',
  'audit_log',
  'webhook_endpoints',
  'webhook_events',
  'review_replies',
];
const snapshot = async () =>
  Object.fromEntries(await Promise.all(TABLES.map(async (table) => [table, (await t.sql(`select count(*)::int as n from ${table}`))[0].n])));

/** The routes the app serves, with their path parameters filled in. */
function routes() {
  return t.app.routes
    .filter((route) => route.path.startsWith('/api/'))
    .map((route) => ({
      method: route.method,
      path: route.path.replace(':id', appId).replace(':slug', slug),
      template: route.path,
      // Routes without a body schema (submit, preflight) take no body and ignore one.
      takesBody: Boolean((route.hooks as { body?: unknown } | undefined)?.body),
    }));
}

const tokenFor = (template: string) => (template.startsWith('/api/dev/') ? (template === '/api/dev/register' ? oauthToken : key) : undefined);

describe('bad input never reaches a 5xx and changes nothing', () => {
  test.each([
    ['malformed JSON', { rawBody: '{"name": ' }],
    ['a JSON array', { rawBody: '[1, 2, 3]' }],
    ['a JSON string', { rawBody: '"hello"' }],
    ['wrong types everywhere', { body: { name: 42, description: [], rating: 'five', scopes: 'APP_READ', screenshots: {} } }],
    ['control characters', { body: { name: 'a\u0000b', description: 'x\u001b[31m', title: '\u0007' } }],
  ])('%s', async (_label, input) => {
    const before = await snapshot();
    for (const route of routes().filter((r) => r.takesBody)) {
      const response = await t.call(route.method, route.path, { token: tokenFor(route.template), ...input });
      expect(response.status, `${route.method} ${route.template}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${route.method} ${route.template}`).toBeLessThan(500);
      expect(response.headers.get('content-type'), `${route.method} ${route.template}`).toBe('application/problem+json');
    }
    expect(await snapshot()).toEqual(before);
  });

  test('an oversized body is 413 on every route that takes one', async () => {
    const before = await snapshot();
    const body = JSON.stringify({ name: 'x'.repeat(5000) });
    for (const route of routes().filter((r) => r.takesBody)) {
      const response = await t.call(route.method, route.path, {
        token: tokenFor(route.template),
        rawBody: body,
        headers: { 'content-length': String(body.length) },
      });
      expect(response.status, `${route.method} ${route.template}`).toBe(413);
    }
    expect(await snapshot()).toEqual(before);
  });

  test('every developer route refuses a missing, malformed or revoked credential with 401', async () => {
    const developer = await registerDeveloper(t);
    const revoked = await mintKey(t, developer);
    const [{ id }] = await t.sql('select id from api_keys where developer_id = ? order by created_at desc limit 1', [developer.id]);
    await t.call('DELETE', `/api/dev/api-keys/${id}`, { token: developer.oauthToken });
    const before = await snapshot();
    // The trusted-publishing exchange takes no credential: the CI job's token is its body (tests/publishing).
    for (const route of routes().filter((r) => r.template.startsWith('/api/dev/') && r.template !== '/api/dev/trusted-publishing/exchange')) {
      const credentials: Record<string, string>[] = [
        {},
        { authorization: 'Bearer' },
        { authorization: 'Basic dXNlcjpwYXNz' },
        { authorization: `Bearer ${revoked}` },
      ];
      for (const headers of credentials) {
        const response = await t.call(route.method, route.path, {
          headers,
          body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
        });
        expect(response.status, `${route.method} ${route.template} ${JSON.stringify(headers)}`).toBe(401);
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  test('malformed path ids and query strings are 400', async () => {
    for (const route of routes().filter((r) => r.template.includes(':id'))) {
      const response = await t.call(route.method, route.template.replace(':id', 'not-a-uuid'), {
        token: tokenFor(route.template),
        body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
      });
      expect(response.status, `${route.method} ${route.template}`).toBe(400);
    }
    for (const query of ['?limit=abc', '?page=0', '?limit=1000', '?featured=maybe', '?sort=random', '?category=games']) {
      expect((await t.call('GET', `/api/apps${query}`)).status, query).toBe(400);
    }
    expect((await t.call('GET', '/api/dev/apps?limit=0', { token: key })).status).toBe(400);
    expect((await t.call('GET', `/api/apps/${slug}/reviews?page=-1`)).status).toBe(400);
  });
});
