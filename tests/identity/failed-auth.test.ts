import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { generateKey } from '../../src/modules/api-keys/key-format.ts';

/**
 * Guessing keys costs the guesser, not the service: after `failed-auth` failures in a minute a
 * client's next failures are 429, and malformed keys are refused before any key is hashed or
 * looked up. Junk from an address never locks out a valid credential sent from it, and sending
 * no credential at all guesses nothing and counts for nothing.
 */
let t: TestApp;
let validKey: string;
let developer: TestDeveloper;
beforeAll(async () => {
  // Trusting the in-process peer lets X-Forwarded-For stand for distinct clients.
  t = await createTestApp({ RATE_LIMITS: 'failed-auth=10', TRUSTED_PROXIES: '127.0.0.1/32' });
  developer = await registerDeveloper(t);
  validKey = await mintKey(t, developer);
});
afterAll(() => t.close());

/**
 * The limiter counts in fixed one-minute windows, so failures that straddle a window's turn start
 * over: a test that counts up to the limit starts with at least 5 s of its window left (each takes
 * well under one; 15 s made the run wait up to 15 s a quarter of the time, D211).
 */
async function withFiveSecondsOfTheWindowLeft(): Promise<void> {
  while (Date.now() % 60_000 > 55_000) await Bun.sleep(100);
}

const me = (key: string, from: string) => t.call('GET', '/api/dev/me', { token: key, headers: { 'x-forwarded-for': from } });

test('the 11th failure in a minute is 429; a valid key or token from that client is still served; other clients are unaffected', async () => {
  await withFiveSecondsOfTheWindowLeft();
  for (let i = 0; i < 10; i += 1) {
    const response = await me(generateKey(), '203.0.113.50');
    expect(response.status).toBe(401);
  }
  const refused = await me(generateKey(), '203.0.113.50');
  expect(refused.status).toBe(429);
  expect(refused.body.code).toBe('RATE_LIMITED');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  // A key that authenticates is never refused by this limiter, nor is the platform token (verified locally).
  expect((await me(validKey, '203.0.113.50')).status).toBe(200);
  expect((await t.call('GET', '/api/dev/api-keys', { token: developer.oauthToken, headers: { 'x-forwarded-for': '203.0.113.50' } })).status).toBe(
    200,
  );
  // A malformed key (its checksum is wrong) is refused unchecked; a bad platform token is 429 too, on every kind of route.
  expect((await me(`${validKey.slice(0, -1)}${validKey.endsWith('0') ? '1' : '0'}`, '203.0.113.50')).status).toBe(429);
  expect((await t.call('POST', '/api/dev/register', { token: 'not-a-token', headers: { 'x-forwarded-for': '203.0.113.50' }, body: {} })).status).toBe(
    429,
  );
  expect((await me(generateKey(), '203.0.113.50')).status).toBe(429);
  // Someone else, even with a failure of their own, is served.
  expect((await me(generateKey(), '198.51.100.7')).status).toBe(401);
  expect((await me(validKey, '198.51.100.7')).status).toBe(200);
});

test('successes do not count: a busy client with a valid key is never slowed', async () => {
  for (let i = 0; i < 30; i += 1) expect((await me(validKey, '192.0.2.80')).status).toBe(200);
});

test('a missing token guesses nothing: it is 401 however often, and leaves the budget whole', async () => {
  const from = '192.0.2.90';
  for (let i = 0; i < 15; i += 1) {
    expect((await t.call('GET', '/api/dev/me', { headers: { 'x-forwarded-for': from } })).status).toBe(401);
    expect((await t.call('GET', '/api/dev/me', { headers: { 'x-forwarded-for': from, authorization: 'Basic dXNlcjpwYXNz' } })).status).toBe(401);
  }
  // The first real failures from that address are still plain 401s.
  expect((await me(generateKey(), from)).status).toBe(401);
});

test('behind one proxy address, a flood of junk leaves every valid key working', async () => {
  const proxy = '198.51.100.200';
  await withFiveSecondsOfTheWindowLeft();
  for (let i = 0; i < 30; i += 1) await me(i % 2 ? generateKey() : 'junk', proxy);
  expect((await me(generateKey(), proxy)).status).toBe(429);
  const other = await mintKey(t, await registerDeveloper(t));
  for (const key of [validKey, other, validKey]) expect((await me(key, proxy)).status).toBe(200);
});
