import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ALL_SCOPES, createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { appRow, approvedApp, completeApp, createApp } from './fixtures.ts';

let t: TestApp;
let alice: TestDeveloper;
let aliceKey: string;
let bobKey: string;
let draft: { id: string };
let approved: { id: string };

beforeAll(async () => {
  t = await createTestApp();
  alice = await registerDeveloper(t);
  aliceKey = await mintKey(t, alice);
  const bob = await registerDeveloper(t);
  bobKey = await mintKey(t, bob);
  draft = await createApp(t, aliceKey);
  approved = await approvedApp(t, aliceKey);
});
afterAll(() => t.close());

interface Route {
  method: string;
  path: (id: string) => string;
  scope: string;
  body?: object;
}

const routes: Route[] = [
  { method: 'POST', path: () => '/api/dev/apps', scope: 'APP_CREATE', body: completeApp() },
  { method: 'GET', path: () => '/api/dev/apps', scope: 'APP_READ' },
  { method: 'GET', path: (id) => `/api/dev/apps/${id}`, scope: 'APP_READ' },
  { method: 'PUT', path: (id) => `/api/dev/apps/${id}`, scope: 'APP_UPDATE', body: { description: 'Changed.' } },
  { method: 'DELETE', path: (id) => `/api/dev/apps/${id}`, scope: 'APP_DELETE' },
  { method: 'POST', path: (id) => `/api/dev/apps/${id}/submit`, scope: 'APP_UPDATE' },
  { method: 'POST', path: (id) => `/api/dev/apps/${id}/preflight`, scope: 'APP_READ' },
  { method: 'POST', path: (id) => `/api/dev/apps/${id}/revisions`, scope: 'APP_UPDATE', body: { description: 'Changed.' } },
];
const label = (route: Route) => `${route.method} ${route.path(':id')}`;

describe('scopes', () => {
  test.each(routes.map((route) => [label(route), route] as const))(
    '%s without its scope is 403 INSUFFICIENT_SCOPE and changes nothing',
    async (_label, route) => {
      const key = await mintKey(
        t,
        alice,
        ALL_SCOPES.filter((scope) => scope !== route.scope),
      );
      const [count] = await t.sql('select count(*)::int as n from apps');
      const before = await appRow(t, draft.id);
      const response = await t.call(route.method, route.path(draft.id), { token: key, body: route.body });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
      expect(response.body.detail).toContain(route.scope);
      expect(await t.sql('select count(*)::int as n from apps')).toEqual([count]);
      expect(await appRow(t, draft.id)).toEqual(before);
    },
  );

  test.each(routes.map((route) => [label(route), route] as const))('%s with only its scope is allowed', async (_label, route) => {
    const key = await mintKey(t, alice, [route.scope]);
    // Each call gets its own fresh target: revisions need an approved app, the others a draft.
    const target = route.path(':id').endsWith('/revisions') ? await approvedApp(t, aliceKey) : await createApp(t, aliceKey);
    const response = await t.call(route.method, route.path(target.id), { token: key, body: route.body });
    expect([200, 201]).toContain(response.status);
  });

  test('the OAuth token is 403 API_KEY_REQUIRED and no token is 401 on every route', async () => {
    for (const route of routes) {
      const oauth = await t.call(route.method, route.path(draft.id), { token: alice.oauthToken, body: route.body });
      expect(oauth.status).toBe(403);
      expect(oauth.body.code).toBe('API_KEY_REQUIRED');
      const anonymous = await t.call(route.method, route.path(draft.id), { body: route.body });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe('UNAUTHENTICATED');
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    }
  });
});

describe("another developer's apps", () => {
  test.each(routes.filter((route) => route.path('x') !== '/api/dev/apps').map((route) => [label(route), route] as const))(
    '%s on them is 404 NOT_FOUND and changes nothing',
    async (_label, route) => {
      for (const app of [draft, approved]) {
        const before = await appRow(t, app.id);
        const response = await t.call(route.method, route.path(app.id), { token: bobKey, body: route.body });
        expect(response.status).toBe(404);
        expect(response.body.code).toBe('NOT_FOUND');
        expect(await appRow(t, app.id)).toEqual(before);
      }
      expect(await t.sql('select id from app_revisions where app_id = ?', [approved.id])).toEqual([]);
    },
  );

  test('the list shows none of them', async () => {
    await createApp(t, bobKey);
    const list = await t.call('GET', '/api/dev/apps?limit=100', { token: bobKey });
    expect(list.status).toBe(200);
    expect(list.body.pagination.total).toBe(1);
    const [aliceCount] = await t.sql('select count(*)::int as n from apps where developer_id = ?', [alice.id]);
    expect(aliceCount.n).toBeGreaterThan(0);
    const ids = list.body.data.map((app: { id: string }) => app.id);
    expect(ids).not.toContain(draft.id);
    expect(ids).not.toContain(approved.id);
  });
});
