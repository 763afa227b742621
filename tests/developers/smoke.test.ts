import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

test('smoke', async () => {
  const dev = await registerDeveloper(t);
  const key = await mintKey(t, dev);
  const me = await t.call('GET', '/api/dev/me', { token: key });
  console.log(me.status, me.body, [...me.headers]);
  const bad = await t.call('POST', '/api/dev/register', { token: dev.oauthToken, body: { name: '' } });
  console.log(bad.status, JSON.stringify(bad.body), [...bad.headers]);
  const nf = await t.call('GET', '/nope');
  console.log(nf.status, nf.body);
  const parse = await t.call('POST', '/api/dev/register', { token: dev.oauthToken, rawBody: '{bad' });
  console.log(parse.status, parse.body);
  const keys = await t.call('GET', '/api/dev/api-keys', { token: key });
  console.log(keys.status, keys.body);
  const sw = await t.call('GET', '/swagger/json');
  console.log(sw.status, Object.keys(sw.body.paths ?? {}));
  expect(me.status).toBe(200);
});
