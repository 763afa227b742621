import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';

/** Cookies are client input like any other: one that does not decode is no cookie, never a 500. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({}, { role: 'api' });
});
afterAll(() => t.close());

const send = (method: string, path: string, cookie: string) =>
  t.app.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: method === 'POST' ? '_csrf=x&_login=x&email=a%40example.com&password=x' : undefined,
    }),
  );

test('a session or sign-in cookie that is not valid percent-encoding reads as absent', async () => {
  for (const cookie of ['marketplace_admin=%E0%A4%A', 'marketplace_admin=%', 'marketplace_login=%ZZ; marketplace_admin=%C0']) {
    expect((await send('GET', '/admin', cookie)).status).toBe(303);
    expect((await send('GET', '/admin/login', cookie)).status).toBe(200);
    expect((await send('POST', '/admin/login', cookie)).status).toBe(403);
    expect((await send('POST', '/admin/logout', cookie)).status).toBe(303);
    expect((await send('POST', `/admin/developers/${crypto.randomUUID()}/verify`, cookie)).status).toBe(403);
  }
});
