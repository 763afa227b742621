import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { generateKey } from '../../src/modules/api-keys/key-format.ts';

/**
 * Guessing keys costs the guesser, not the service: after `failed-auth` failures in a minute a
 * client's next attempts are refused with 429 before any key is hashed or looked up.
 */
let t: TestApp;
let validKey: string;
beforeAll(async () => {
  // Trusting the in-process peer lets X-Forwarded-For stand for distinct clients.
  t = await createTestApp({ RATE_LIMITS: 'failed-auth=10', TRUSTED_PROXIES: '127.0.0.1/32' });
  validKey = await mintKey(t, await registerDeveloper(t));
});
afterAll(() => t.close());

const me = (key: string, from: string) => t.call('GET', '/api/dev/me', { token: key, headers: { 'x-forwarded-for': from } });

test('the 11th failure in a minute is 429 before the key is checked; other clients are unaffected', async () => {
  for (let i = 0; i < 10; i += 1) {
    const response = await me(generateKey(), '203.0.113.50');
    expect(response.status).toBe(401);
  }
  const refused = await me(generateKey(), '203.0.113.50');
  expect(refused.status).toBe(429);
  expect(refused.body.code).toBe('RATE_LIMITED');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  // Refused before any check: even a valid key from that client waits out the window.
  expect((await me(validKey, '203.0.113.50')).status).toBe(429);
  // OAuth tokens count too, on every kind of route.
  expect((await t.call('POST', '/api/dev/register', { token: 'not-a-token', headers: { 'x-forwarded-for': '203.0.113.50' }, body: {} })).status).toBe(429);
  // Someone else, even with a failure of their own, is served.
  expect((await me(generateKey(), '198.51.100.7')).status).toBe(401);
  expect((await me(validKey, '198.51.100.7')).status).toBe(200);
});

test('successes do not count: a busy client with a valid key is never slowed', async () => {
  for (let i = 0; i < 30; i += 1) expect((await me(validKey, '192.0.2.80')).status).toBe(200);
});
