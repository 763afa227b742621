import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { createApp, completeApp } from '../apps/fixtures.ts';
import { startIssuer, type TestIssuer } from '../publishing/oidc-issuer.ts';

/**
 * The token exchange takes no other credential, so its refusals are limited per client address
 * (an IPv6 /64), in PostgreSQL (shared by every process): each attempt is reserved before its token
 * is checked, so at most the limit is checked per minute whatever the concurrency. A successful
 * exchange gives its attempt back, and past the limit a token that can be checked without fetching
 * anything is still checked: a valid one is served, so junk from a shared address (CI runners share
 * theirs) never refuses a valid credential.
 */
const LIMIT = 3;
let t: TestApp;
let issuer: TestIssuer;

beforeAll(async () => {
  issuer = await startIssuer();
  // Trusting the in-process peer lets X-Forwarded-For stand for distinct clients.
  t = await createTestApp({
    TRUSTED_PUBLISHING_ISSUERS: issuer.url,
    ALLOW_PRIVATE_FETCH: 'true',
    RATE_LIMITS: `exchanges=${LIMIT}`,
    TRUSTED_PROXIES: '127.0.0.1/32',
  });
  const owner = await registerDeveloper(t);
  const ownerKey = await mintKey(t, owner);
  const app = await createApp(t, ownerKey, completeApp());
  const added = await t.call('POST', `/api/dev/apps/${app.id}/trusted-publishers`, {
    token: ownerKey,
    body: { issuer: issuer.url, repository: 'acme/focus-timer', workflow: 'publish.yml', environment: 'production' },
  });
  expect(added.status).toBe(201);
}, 30_000);

afterAll(async () => {
  await t.close();
  issuer.stop();
}, 30_000);

const exchange = (token: string, from: string) =>
  t.call('POST', '/api/dev/trusted-publishing/exchange', { body: { token }, headers: { 'x-forwarded-for': from } });

test(`${LIMIT} refusals a minute per address, whatever the concurrency; then 429 with Retry-After; a valid token is still served`, async () => {
  const from = '203.0.113.60';
  const junk = await Promise.all(Array.from({ length: 12 }, () => issuer.token({ aud: 'someone-else' })));
  const answers = await Promise.all(junk.map((token) => exchange(token, from)));
  const statuses = answers.map((answer) => answer.status).sort();
  expect(statuses).toEqual([...Array(LIMIT).fill(401), ...Array(12 - LIMIT).fill(429)]);
  const refused = answers.find((answer) => answer.status === 429)!;
  expect(refused.headers.get('content-type')).toBe('application/problem+json');
  expect(refused.body.code).toBe('RATE_LIMITED');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(120);

  // Past the limit: a valid token is served, a bad one (signature, replay) is 429, and another address is unaffected.
  const valid = await issuer.token();
  expect((await exchange(valid, from)).status).toBe(201);
  expect((await exchange(valid, from)).status).toBe(429);
  expect((await exchange(await issuer.token({ aud: 'someone-else' }), '198.51.100.60')).status).toBe(401);
});

test('past the limit, a token whose keys would have to be fetched is refused unchecked', async () => {
  const from = '203.0.113.61';
  for (let i = 0; i < LIMIT; i += 1) expect((await exchange('not-a-jwt', from)).status).toBe(401);
  const fetchesBefore = issuer.requests.length;
  const unknownKey = await exchange(await issuer.token({}, { kid: 'a-key-nobody-holds' }), from);
  expect(unknownKey.status).toBe(429);
  expect(issuer.requests.length).toBe(fetchesBefore);
});

test('successful exchanges use no budget: a busy CI address is never slowed', async () => {
  const from = '2001:db8:60::1';
  for (let i = 0; i < LIMIT * 3; i += 1) expect((await exchange(await issuer.token(), from)).status).toBe(201);
  // The whole budget is still there, counted per /64.
  for (let i = 0; i < LIMIT; i += 1) expect((await exchange('not-a-jwt', `2001:db8:60::${i + 2}`)).status).toBe(401);
  expect((await exchange('not-a-jwt', from)).status).toBe(429);
});

test('the API document lists the 429 with its limit and headers', async () => {
  const document = (await t.call('GET', '/swagger/json')).body;
  const limited = document.paths['/api/dev/trusted-publishing/exchange'].post.responses['429'];
  expect(JSON.stringify(limited)).toContain(`${LIMIT} refused token exchanges per client address`);
  expect(JSON.stringify(limited)).toContain('retry-after');
});
