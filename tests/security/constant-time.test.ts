import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, registerDeveloper, type TestApp } from '../support/harness.ts';
import { sameSecret } from '../../src/lib/constant-time.ts';
import { openSession, hashSessionToken } from '../../src/modules/admin-sign-in/sessions.service.ts';
import { ConsoleClient, createAdminAccount, type AdminAccount } from '../console/support.ts';

/**
 * Every comparison of a secret goes through `sameSecret` (HMACs of both sides under a per-process
 * key, compared with `timingSafeEqual`), so neither the position of the first wrong character nor
 * the length of a guess changes how long the answer takes, and no value makes it throw. Timing
 * itself is not measured here (too noisy on a shared machine); what is tested is that each place
 * gives the same answer to a near miss, a guess of another length and one of odd characters.
 */
describe('sameSecret', () => {
  test('equal only for the same value; never throws, whatever the lengths or characters', () => {
    const secret = 'Zq3k9VYxW1m0T2uR8sHcLp4oNf6eJbAd';
    expect(sameSecret(secret, secret)).toBe(true);
    expect(sameSecret(secret, `${secret.slice(0, -1)}e`)).toBe(false);
    expect(sameSecret(secret, secret.slice(0, -1))).toBe(false);
    expect(sameSecret(secret, `${secret}x`)).toBe(false);
    expect(sameSecret(secret, 'é'.repeat(secret.length))).toBe(false);
    expect(sameSecret(secret, '')).toBe(false);
    expect(sameSecret(secret, undefined)).toBe(false);
    expect(sameSecret(secret, null)).toBe(false);
    // An empty expected value (a setting left blank) matches nothing, not even an empty guess.
    expect(sameSecret('', '')).toBe(false);
  });
});

let t: TestApp;
let admin: AdminAccount;

beforeAll(async () => {
  t = await createTestApp();
  admin = await createAdminAccount(t, 'owner');
});
afterAll(() => t.close());

/** A signed-in console client with a session of the given stage, without the (slow) password step. */
async function sessionOf(stage: 'active' | 'totp'): Promise<{ client: ConsoleClient; csrf: string }> {
  const token = await openSession(t.ctx.orm.em.fork(), admin.id, stage);
  const client = new ConsoleClient(t);
  client.cookies.set('marketplace_admin', token);
  const [row] = await t.sql('select csrf_token from admin_sessions where token_hash = ?', [hashSessionToken(token)]);
  return { client, csrf: row.csrf_token };
}

/** Guesses at a CSRF token that must all be refused: a near miss, shorter, longer, and as many non-ASCII characters. */
const nearMisses = (csrf: string) => [
  `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}`,
  csrf.slice(0, -1),
  `${csrf}A`,
  'é'.repeat(csrf.length),
];

describe('console CSRF tokens', () => {
  test('a state-changing console request with a wrong token of any shape is 403 and changes nothing; the right one passes', async () => {
    const developer = await registerDeveloper(t, { verified: false });
    const { client, csrf } = await sessionOf('active');
    for (const guess of nearMisses(csrf)) {
      for (const sent of [{ form: { _csrf: guess } }, { headers: { 'x-csrf-token': guess } }]) {
        const response = await client.request('POST', `/admin/developers/${developer.id}/verify`, { form: {}, ...sent });
        expect(response.status).toBe(403);
        expect(response.text).toContain('did not come from the console');
      }
    }
    expect((await t.sql('select status from developers where id = ?', [developer.id]))[0].status).toBe('PENDING_VERIFICATION');
    const right = await client.request('POST', `/admin/developers/${developer.id}/verify`, { form: { _csrf: csrf } });
    expect(right.status).toBe(303);
    expect((await t.sql('select status from developers where id = ?', [developer.id]))[0].status).toBe('VERIFIED');
  });

  test('the second-factor form: a wrong token of any shape is 403 before any code is checked', async () => {
    const { client } = await sessionOf('totp');
    const csrf = (await client.get('/admin/login/code')).text.match(/name="_csrf" value="([^"]+)"/)![1]!;
    for (const guess of nearMisses(csrf)) {
      const response = await client.request('POST', '/admin/login/code', { form: { _csrf: guess, code: '000000' } });
      expect(response.status).toBe(403);
      expect(response.text).toContain('This form has expired');
    }
  });

  test('sign-out: a wrong token of any shape is 403 and the session lives on; the right one ends it', async () => {
    const { client, csrf } = await sessionOf('active');
    for (const guess of nearMisses(csrf)) {
      expect((await client.request('POST', '/admin/logout', { form: { _csrf: guess } })).status).toBe(403);
    }
    expect((await client.get('/admin')).status).toBe(200);
    const out = await client.request('POST', '/admin/logout', { form: { _csrf: csrf } });
    expect(out.status).toBe(303);
    expect((await client.get('/admin')).status).toBe(303);
  });

  test('the sign-in form: a double-submit token that differs from its cookie in any way is 403 and opens no session', async () => {
    const client = new ConsoleClient(t);
    const login = (await client.get('/admin/login')).text.match(/name="_login" value="([^"]+)"/)![1]!;
    for (const guess of nearMisses(login)) {
      const response = await client.request('POST', '/admin/login', { form: { _login: guess, email: admin.email, password: admin.password } });
      expect(response.status).toBe(403);
      expect(client.cookies.has('marketplace_admin')).toBe(false);
    }
  });
});
