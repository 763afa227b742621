import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, registerDeveloper, type TestApp } from '../support/harness.ts';

const logLines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { logLines });
});
afterAll(() => t.close());

test('no full key or key hash appears in any response after creation, nor in any log line or error', async () => {
  const developer = await registerDeveloper(t);
  const created = await t.call('POST', '/api/dev/api-keys', { token: developer.oauthToken, body: { name: 'secret', scopes: ['APP_READ'] } });
  const key: string = created.body.key;
  const [{ key_hash: hash }] = await t.sql('select key_hash from api_keys where id = ?', [created.body.id]);
  // The last character changed to one it is not (a fixed 'x' was the key itself one time in 62).
  const typo = `${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`;
  expect(typo).not.toBe(key);

  const responses = [
    await t.call('GET', '/api/dev/me', { token: key }),
    await t.call('GET', '/api/dev/api-keys', { token: key }),
    await t.call('POST', '/api/dev/api-keys', { token: key, body: { name: 'too wide', scopes: ['APP_DELETE'] } }),
    await t.call('GET', '/api/dev/me', { token: typo }),
    await t.call('DELETE', `/api/dev/api-keys/${created.body.id}`, { token: key }),
    await t.call('GET', '/api/dev/me', { token: key }),
  ];
  expect(responses.map((r) => r.status)).toEqual([200, 200, 403, 401, 200, 401]);
  const everything = [...responses.map((r) => JSON.stringify(r.body) + JSON.stringify([...r.headers])), ...logLines].join('\n');
  expect(logLines.length).toBeGreaterThan(5);
  expect(everything).not.toContain(key.slice(3));
  expect(everything).not.toContain(hash);
});
