import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  // Rate limits on (the default), so the document states them.
  t = await createTestApp({ RATE_LIMITS: 'developer=600' });
});
afterAll(() => t.close());

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

test('every route is in /swagger/json with a summary, its request schemas and its response schemas', async () => {
  const document = (await t.call('GET', '/swagger/json')).body;
  const routes = t.app.routes.filter((route) => route.path.startsWith('/api/') || route.path === '/livez' || route.path === '/readyz');
  expect(routes.length).toBeGreaterThanOrEqual(20);
  for (const route of routes) {
    const operation = document.paths[toOpenApiPath(route.path)]?.[route.method.toLowerCase()];
    expect(operation, `${route.method} ${route.path} is documented`).toBeDefined();
    expect(operation.summary, `${route.method} ${route.path} has a summary`).toBeString();
    const successes = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
    expect(successes.length, `${route.method} ${route.path} documents its success`).toBeGreaterThan(0);
    for (const status of Object.keys(operation.responses)) {
      const content = operation.responses[status].content;
      expect(content, `${route.method} ${route.path} ${status} has a schema`).toBeDefined();
    }
    if (['POST', 'PUT'].includes(route.method) && !/\/(submit|preflight|rotate-secret|test|redeliver|accept|decline|verify)$/.test(route.path)) {
      expect(operation.requestBody, `${route.method} ${route.path} documents its body`).toBeDefined();
    }
    if (route.path.startsWith('/api/dev/') && route.path !== '/api/dev/register') {
      expect(operation.security, `${route.method} ${route.path} declares bearer auth`).toEqual([{ bearer: [] }]);
    }
    // Every route behind a credential or a public limit can be refused with 429: it says so, with the limits and headers.
    if (route.path.startsWith('/api/')) {
      const limited = operation.responses['429'];
      expect(limited, `${route.method} ${route.path} documents 429`).toBeDefined();
      expect(Object.keys(limited.headers ?? {}).sort(), `${route.method} ${route.path} 429 headers`).toEqual([
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
        'retry-after',
      ]);
      expect(limited.description).toMatch(/a minute/);
    }
  }
  const limitOf = (path: string, method: string) => document.paths[path][method].responses['429'].description as string;
  expect(limitOf('/api/dev/api-keys', 'post')).toContain('10 key creations per developer a minute');
  expect(limitOf('/api/dev/apps/{id}/submit', 'post')).toContain('10 submissions per developer a minute');
  expect(limitOf('/api/dev/apps/{id}/revisions', 'post')).toContain('10 revisions per developer a minute');
  expect(limitOf('/api/apps/{slug}/install', 'post')).toContain('300 installs and reviews per client address');
});
