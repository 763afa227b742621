import { afterAll, beforeAll, expect, test } from 'bun:test';
import { dereferenced } from '../support/openapi.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';

/** The new routes are documented in full: what they do, their inputs, outputs and refusals. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const NEW_ROUTES = [
  ['post', '/api/dev/webhooks'],
  ['get', '/api/dev/webhooks'],
  ['get', '/api/dev/webhooks/{id}'],
  ['put', '/api/dev/webhooks/{id}'],
  ['delete', '/api/dev/webhooks/{id}'],
  ['post', '/api/dev/webhooks/{id}/rotate-secret'],
  ['post', '/api/dev/webhooks/{id}/test'],
  ['get', '/api/dev/webhooks/{id}/deliveries'],
  ['post', '/api/dev/webhooks/{id}/deliveries/{deliveryId}/redeliver'],
  ['get', '/api/dev/apps/{id}/reviews'],
  ['put', '/api/dev/apps/{id}/reviews/{reviewId}/reply'],
  ['delete', '/api/dev/apps/{id}/reviews/{reviewId}/reply'],
] as const;

test('every webhook and reply route has a summary, a description, typed parameters, bodies, answers and errors', async () => {
  const document = dereferenced((await t.call('GET', '/swagger/json')).body);
  for (const [method, path] of NEW_ROUTES) {
    const operation = document.paths[path]?.[method];
    const label = `${method.toUpperCase()} ${path}`;
    expect(operation, label).toBeDefined();
    expect(operation.summary.length, label).toBeGreaterThan(10);
    expect(operation.description.length, label).toBeGreaterThan(30);
    expect(operation.security, label).toEqual([{ bearer: [] }]);
    for (const name of path.match(/\{(\w+)\}/g)?.map((p) => p.slice(1, -1)) ?? []) {
      const parameter = operation.parameters.find((p: { name: string; in: string }) => p.name === name && p.in === 'path');
      expect(parameter?.schema.pattern, `${label} :${name} is a UUID`).toBeString();
    }
    const [success] = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
    const schema = operation.responses[success!].content['application/json'].schema;
    expect(schema.properties ?? schema.items, `${label} success schema`).toBeDefined();
    for (const status of ['400', '401', '403']) {
      if (status === '400' && method === 'get' && path === '/api/dev/webhooks') continue;
      expect(
        operation.responses[status]?.content['application/problem+json'].schema.allOf[1].properties.code.enum,
        `${label} documents ${status}`,
      ).toBeArray();
    }
    if (path.includes('{')) expect(operation.responses['404'], `${label} documents 404`).toBeDefined();
    const hasBody = (method === 'post' || method === 'put') && !/(rotate-secret|test|redeliver)$/.test(path);
    expect(Boolean(operation.requestBody), `${label} body`).toBe(hasBody);
    if (hasBody) expect(operation.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
  }
  expect(
    document.paths['/api/apps/{slug}/reviews'].get.responses['200'].content['application/json'].schema.properties.data.items.properties.reply,
  ).toBeDefined();
});
