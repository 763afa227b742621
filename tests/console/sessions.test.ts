import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, registerDeveloper, type TestApp } from '../support/harness.ts';
import { currentTotpCode } from '../../src/modules/admin-sign-in/totp.ts';
import { createSemaphore, SemaphoreFullError } from '../../src/lib/semaphore.ts';
import { ConsoleClient, createAdminAccount, signedIn, type AdminAccount } from './support.ts';

/**
 * Sign-in, sessions, CSRF, throttling and the second factor, through HTTP as a browser without JavaScript sends it.
 * Tests marked concurrent run side by side with their concurrent neighbours (a test not so marked
 * runs alone): each signs in accounts of its own, failing from addresses of its own; the sign-ins
 * without an address (127.0.0.1) all succeed, and at most three at once hold an attempt of its budget.
 */
let t: TestApp;
let reviewer: AdminAccount;
/** The service as production configures it, for the second factor: started with the other, used from the last describe. */
let prodStarting: Promise<TestApp> | undefined;

beforeAll(async () => {
  prodStarting = createTestApp({
    APP_ENV: 'production',
    SMTP_URL: 'smtp://127.0.0.1:9',
    API_KEY_SECRETS: `k1:${'s'.repeat(40)}`,
    OAUTH_JWKS_URL: 'https://id.example.com/.well-known/jwks.json',
    OAUTH_ISSUER: 'https://id.example.com',
    OAUTH_AUDIENCE: 'marketplace',
    OAUTH_ALLOWED_CLIENTS: 'first-party',
    WEBHOOK_ENCRYPTION_KEYS: `prod:${Buffer.alloc(32, 7).toString('base64')}`,
    TRUSTED_PROXIES: '127.0.0.1',
    RATE_LIMITS: 'signin=5',
  });
  prodStarting.catch(() => {}); // a failed start is reported where it is awaited
  // Requests "come from" 127.0.0.1, a trusted proxy here, so X-Forwarded-For picks the address per test.
  t = await createTestApp({ RATE_LIMITS: 'signin=5', TRUSTED_PROXIES: '127.0.0.1' });
  reviewer = await createAdminAccount(t, 'reviewer');
});
afterAll(async () => {
  await Promise.all([
    t?.close(),
    prodStarting?.then(
      (prod) => prod.close(),
      () => {},
    ),
  ]);
});

const developerStatus = async (id: string) => (await t.sql('select status from developers where id = ?', [id]))[0].status;
const from = (address: string) => ({ 'x-forwarded-for': address });

/** Signs in with the password alone and returns the first page's HTML (where a flash shows). */
async function dashboardAfterSignIn(client: ConsoleClient, account: AdminAccount, headers: Record<string, string>): Promise<string> {
  const login = (await client.get('/admin/login')).text.match(/name="_login" value="([^"]+)"/)![1]!;
  const response = await client.request('POST', '/admin/login', {
    form: { _login: login, email: account.email, password: account.password, next: '/admin' },
    headers,
  });
  expect(response.location).toBe('/admin');
  return (await client.get('/admin')).text;
}

describe.concurrent('signing in', () => {
  test('/admin without a session is 303 to the sign-in page, which has Email, Password and "Sign in"', async () => {
    const client = new ConsoleClient(t);
    const response = await client.get('/admin/developers?status=VERIFIED');
    expect(response.status).toBe(303);
    expect(response.location).toBe('/admin/login?next=%2Fadmin%2Fdevelopers%3Fstatus%3DVERIFIED');
    const page = await client.get('/admin/login');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<label for="email">Email</label>');
    expect(page.text).toContain('<label for="password">Password</label>');
    expect(page.text).toContain('<button type="submit" class="primary">Sign in</button>');
  });

  test('a correct password opens a session: HttpOnly, SameSite=Lax cookie; console security headers on every response', async () => {
    const client = new ConsoleClient(t);
    const response = await client.signIn(reviewer.email, reviewer.password, from('10.1.0.1'));
    expect(response.status).toBe(303);
    expect(response.location).toBe('/admin');
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('marketplace_admin='))!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Secure');
    const [row] = await t.sql('select token_hash from admin_sessions where admin_id = ?', [reviewer.id]);
    expect(row.token_hash).not.toBe(client.cookies.get('marketplace_admin')); // only a hash is stored

    const page = await client.get('/admin');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(page.text).toMatch(/<script src="\/admin\/assets\/htmx\.[0-9a-f]{12}\.js" defer><\/script>/);
    const script = await client.get(page.text.match(/src="(\/admin\/assets\/htmx\.[0-9a-f]+\.js)"/)![1]!);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toStartWith('text/javascript');
    expect(script.text).toContain('4.0.1');
  });

  test('a wrong password is 401 on the page and opens no session; an unknown account looks the same', async () => {
    const client = new ConsoleClient(t);
    const wrong = await client.signIn(reviewer.email, 'not the password', from('10.1.0.2'));
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The e-mail address or password is wrong');
    const unknown = await client.signIn('nobody@example.com', 'not the password', from('10.1.0.2'));
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('The e-mail address or password is wrong');
    expect(client.cookies.has('marketplace_admin')).toBe(false);
  });

  test('a sign-in form posted without its own token (login CSRF) is refused', async () => {
    const client = new ConsoleClient(t);
    const response = await client.request('POST', '/admin/login', {
      form: { email: reviewer.email, password: reviewer.password },
      headers: from('10.1.0.3'),
    });
    expect(response.status).toBe(403);
    expect(client.cookies.has('marketplace_admin')).toBe(false);
  });
});

describe('throttling', () => {
  test.concurrent('30 concurrent wrong passwords (the right one last): at most 5 are checked, the right one among the excess does not sign in', async () => {
    const admin = await createAdminAccount(t, 'support');
    const clients = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const client = new ConsoleClient(t);
        const page = await client.get('/admin/login');
        return { client, login: page.text.match(/name="_login" value="([^"]+)"/)![1]! };
      }),
    );
    const responses = await Promise.all(
      clients.map(({ client, login }, i) =>
        client.request('POST', '/admin/login', {
          form: { _login: login, email: admin.email, password: i === 29 ? admin.password : `wrong password ${i}`, next: '/admin' },
          headers: from('10.2.0.1'),
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(25);
    if (statuses[29] === 429) expect(await t.sql('select 1 from admin_sessions where admin_id = ?', [admin.id])).toEqual([]);
    expect(responses.find((r) => r.status === 429)!.headers.get('retry-after')).toMatch(/^\d+$/);
  }, 30_000);

  // Alone: its 13 sign-ins one after another would otherwise each wait behind the other tests'
  // argon2id verifications (two at a time).
  test('a lockout attempt from one address leaves the owner able to sign in from another, and shows them the failed attempts', async () => {
    const admin = await createAdminAccount(t, 'owner');
    const attacker = new ConsoleClient(t);
    for (let i = 1; i <= 5; i += 1) expect((await attacker.signIn(admin.email, 'wrong password', from('10.2.1.1'))).status).toBe(401);
    const locked = await attacker.signIn(admin.email, admin.password, from('10.2.1.1'));
    expect(locked.status).toBe(429);
    expect(locked.text).toContain('Too many failed sign-ins');
    expect(attacker.cookies.has('marketplace_admin')).toBe(false);
    // IPv6: the attacker's whole /64 is one address; another /64 is not.
    for (let i = 1; i <= 5; i += 1) expect((await attacker.signIn(admin.email, 'wrong password', from(`2001:db8:1:1::${i}`))).status).toBe(401);
    expect((await attacker.signIn(admin.email, admin.password, from('2001:db8:1:1::99'))).status).toBe(429);

    const owner = new ConsoleClient(t);
    // The first page after signing in tells them; the account page lists the attempts.
    expect(await dashboardAfterSignIn(owner, admin, from('2001:db8:1:2::1'))).toContain(
      '10 failed sign-in attempts on your account since your last sign-in',
    );
    const account = await owner.get('/admin/account');
    expect(account.text).toContain('Failed sign-ins');
    expect(account.text).toContain('10.2.1.1');
    expect(account.text).toContain('2001:db8:1:1::5');
    // Signed in again, nothing new to report.
    await owner.post('/admin/logout');
    expect(await dashboardAfterSignIn(owner, admin, from('2001:db8:1:2::1'))).not.toContain('failed sign-in attempts');
  }, 30_000);

  test.concurrent('the 6th failure in a minute from one address is refused, whatever the account; other addresses are unaffected', async () => {
    const admin = await createAdminAccount(t, 'support');
    const client = new ConsoleClient(t);
    for (let i = 1; i <= 5; i += 1) expect((await client.signIn(`someone-${i}@example.com`, 'wrong password', from('10.3.0.1'))).status).toBe(401);
    expect((await client.signIn(admin.email, admin.password, from('10.3.0.1'))).status).toBe(429);
    expect((await client.signIn(admin.email, admin.password, from('10.3.0.2'))).status).toBe(303);
  });

  test.concurrent('argon2id verifications are bounded: two run at once, the rest wait, and past the queue they are turned away', async () => {
    const semaphore = createSemaphore(2, 2);
    let running = 0;
    let peak = 0;
    const task = () =>
      semaphore.run(async () => {
        running += 1;
        peak = Math.max(peak, running);
        await Bun.sleep(20);
        running -= 1;
      });
    const results = await Promise.allSettled([task(), task(), task(), task(), task()]);
    expect(peak).toBe(2);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason)).toEqual([expect.any(SemaphoreFullError)]);
  });
});

describe.concurrent('state-changing requests', () => {
  test('without a CSRF token or with a wrong one: 403 and nothing changes; the session token (field or htmx header) works', async () => {
    const developer = await registerDeveloper(t, { verified: false });
    const client = await signedIn(t, reviewer);
    const path = `/admin/developers/${developer.id}/verify`;
    expect((await client.post(path, {}, { withoutCsrf: true })).status).toBe(403);
    expect((await client.post(path, { _csrf: 'x'.repeat(client.csrf.length) })).status).toBe(403);
    expect((await client.post(path, {}, { htmx: true, withoutCsrf: true, headers: { 'x-csrf-token': 'forged' } })).status).toBe(403);
    expect(await developerStatus(developer.id)).toBe('PENDING_VERIFICATION');
    // A cross-site form, even with a leaked token, is refused by the browser's own Sec-Fetch-Site.
    expect((await client.post(path, {}, { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect(await developerStatus(developer.id)).toBe('PENDING_VERIFICATION');

    const viaHeader = await client.post(path, { view: 'row' }, { htmx: true, withoutCsrf: true, headers: { 'x-csrf-token': client.csrf } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.text).toStartWith(`<tr id="developer-${developer.id}">`);
    expect(await developerStatus(developer.id)).toBe('VERIFIED');
  });

  test('without a session: 403 (htmx: with HX-Redirect to the sign-in) and nothing changes', async () => {
    const developer = await registerDeveloper(t, { verified: false });
    const anonymous = new ConsoleClient(t);
    const plain = await anonymous.post(`/admin/developers/${developer.id}/verify`, { _csrf: 'anything' });
    expect(plain.status).toBe(403);
    const htmx = await anonymous.post(`/admin/developers/${developer.id}/verify`, { _csrf: 'anything' }, { htmx: true });
    expect(htmx.status).toBe(403);
    expect(htmx.headers.get('hx-redirect')).toStartWith('/admin/login');
    expect(await developerStatus(developer.id)).toBe('PENDING_VERIFICATION');
  });

  test('an expired session (absolute or idle) is refused: pages go to the sign-in, posts are 403 and change nothing', async () => {
    const developer = await registerDeveloper(t, { verified: false });
    for (const expire of [
      `update admin_sessions set expires_at = now() - interval '1 second' where admin_id = ?`,
      `update admin_sessions set last_seen_at = now() - interval '31 minutes' where admin_id = ?`,
    ]) {
      const admin = await createAdminAccount(t, 'reviewer');
      const client = await signedIn(t, admin);
      await t.sql(expire, [admin.id]);
      const page = await client.get('/admin');
      expect(page.status).toBe(303);
      expect(page.location).toStartWith('/admin/login');
      expect((await client.post(`/admin/developers/${developer.id}/verify`)).status).toBe(403);
      expect(await developerStatus(developer.id)).toBe('PENDING_VERIFICATION');
    }
  });

  test('"Sign out" ends the session: the row is gone and the old cookie no longer works', async () => {
    const admin = await createAdminAccount(t, 'reviewer');
    const client = await signedIn(t, admin);
    const token = client.cookies.get('marketplace_admin')!;
    expect((await client.post('/admin/logout', {}, { withoutCsrf: true })).status).toBe(403); // a forged sign-out is refused
    const out = await client.post('/admin/logout');
    expect(out.status).toBe(303);
    expect(out.location).toBe('/admin/login');
    expect(await t.sql('select 1 from admin_sessions where admin_id = ?', [admin.id])).toEqual([]);
    const replay = new ConsoleClient(t);
    replay.cookies.set('marketplace_admin', token);
    expect((await replay.get('/admin')).status).toBe(303);
  });
});

describe.concurrent('TOTP in production', () => {
  let prod: TestApp;
  beforeAll(async () => {
    prod = await prodStarting!;
  });

  /** Signs a new account in from `address` and enrols its second factor; returns the signed-in client and the secret. */
  async function enrolled(account: AdminAccount, address: string): Promise<{ client: ConsoleClient; secret: string }> {
    const client = new ConsoleClient(prod);
    expect((await client.signIn(account.email, account.password, from(address))).location).toBe('/admin/login/enrol?next=%2Fadmin');
    const secret = (await client.get('/admin/login/enrol')).text.match(/<code>([A-Z2-7 ]+)<\/code>/)![1]!.replaceAll(' ', '');
    expect((await client.post('/admin/login/enrol', { code: currentTotpCode(secret), next: '/admin' }, { headers: from(address) })).status).toBe(303);
    await client.get('/admin');
    return { client, secret };
  }

  test('an admin without a second factor must enrol (QR code, confirmation code); a wrong or replayed code is refused', async () => {
    const admin = await createAdminAccount(prod, 'owner');
    const client = new ConsoleClient(prod);
    const password = await client.signIn(admin.email, admin.password);
    expect(password.status).toBe(303);
    expect(password.location).toBe('/admin/login/enrol?next=%2Fadmin');
    const cookie = password.headers.getSetCookie().find((c) => c.startsWith('__Host-marketplace_admin='))!;
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('Path=/');
    // Half signed in: the console itself is still closed.
    expect((await client.get('/admin')).status).toBe(303);

    const enrol = await client.get('/admin/login/enrol?next=%2Fadmin');
    expect(enrol.status).toBe(200);
    expect(enrol.text).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
    const secret = enrol.text.match(/<code>([A-Z2-7 ]+)<\/code>/)![1]!.replaceAll(' ', '');
    expect((await client.post('/admin/login/enrol', { code: '000000', next: '/admin' })).status).toBe(400);
    expect((await client.get('/admin')).status).toBe(303);
    const used = currentTotpCode(secret);
    const confirmed = await client.post('/admin/login/enrol', { code: used, next: '/admin' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toBe('/admin');
    expect((await client.get('/admin')).status).toBe(200);
    expect((await prod.sql('select totp_secret is not null as enrolled from admins where id = ?', [admin.id]))[0].enrolled).toBe(true);

    // Next sign-in asks for the code; the code already used is refused, a wrong one too, the next one works.
    await client.post('/admin/logout');
    const again = await client.signIn(admin.email, admin.password);
    expect(again.location).toBe('/admin/login/code?next=%2Fadmin');
    await client.get('/admin/login/code');
    expect((await client.post('/admin/login/code', { code: used, next: '/admin' })).status).toBe(400);
    expect((await client.post('/admin/login/code', { code: '123456', next: '/admin' })).status).toBe(400);
    expect((await client.get('/admin')).status).toBe(303);
    const next = await client.post('/admin/login/code', { code: currentTotpCode(secret, Date.now() + 30_000), next: '/admin' });
    expect(next.status).toBe(303);
    expect((await client.get('/admin')).status).toBe(200);
  });

  test('30 concurrent wrong codes (the right one last) on one half-signed-in session: at most 5 are checked', async () => {
    const admin = await createAdminAccount(prod, 'reviewer');
    const { client, secret } = await enrolled(admin, '10.8.0.1');
    await client.post('/admin/logout');
    expect((await client.signIn(admin.email, admin.password, from('10.8.0.2'))).location).toBe('/admin/login/code?next=%2Fadmin');
    await client.get('/admin/login/code');
    const right = currentTotpCode(secret, Date.now() + 30_000);
    const valid = new Set([-1, 0, 1, 2].map((step) => currentTotpCode(secret, Date.now() + step * 30_000)));
    const wrong = Array.from({ length: 1000 }, (_, i) => String(100000 + i * 7))
      .filter((code) => !valid.has(code))
      .slice(0, 29);
    const responses = await Promise.all(
      [...wrong, right].map((code) => client.post('/admin/login/code', { code, next: '/admin' }, { headers: from('10.8.0.2') })),
    );
    // Checked: a wrong code (400) or the right one (303 into the console); a request that arrived after the session ended is neither.
    const checked = responses.filter((r) => r.status === 400 || (r.status === 303 && r.location === '/admin'));
    expect(checked.length).toBeLessThanOrEqual(5);
    if (responses[29]!.status === 429)
      expect(await prod.sql(`select 1 from admin_sessions where admin_id = ? and stage = 'active'`, [admin.id])).toEqual([]);
  }, 30_000);

  test('after an owner resets a second factor, the password alone cannot enrol a new one: the one-time code shown to that owner is needed', async () => {
    const owner = await createAdminAccount(prod, 'owner');
    const { client: ownerClient } = await enrolled(owner, '10.9.0.1');
    const admin = await createAdminAccount(prod, 'reviewer');
    const { client: adminClient } = await enrolled(admin, '10.9.0.2');
    await ownerClient.get('/admin/admins');
    const reset = await ownerClient.post(`/admin/admins/${admin.id}/reset-totp`, { confirmed: 'yes' }, { htmx: true });
    expect(reset.status).toBe(200);
    const enrolmentCode = reset.text.match(/enrolment code[^:]*: ([A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4})/)![1]!;
    expect((await adminClient.get('/admin')).status).toBe(303); // their sessions ended
    expect(JSON.stringify(await prod.sql('select * from admins where id = ?', [admin.id]))).not.toContain(enrolmentCode);

    // Whoever holds only the password reaches the enrolment page, and can go no further.
    const thief = new ConsoleClient(prod);
    expect((await thief.signIn(admin.email, admin.password, from('10.9.0.3'))).location).toBe('/admin/login/enrol?next=%2Fadmin');
    const page = await thief.get('/admin/login/enrol');
    expect(page.text).toContain('Enrolment code');
    const secret = page.text.match(/<code>([A-Z2-7 ]+)<\/code>/)![1]!.replaceAll(' ', '');
    expect((await thief.post('/admin/login/enrol', { code: currentTotpCode(secret), next: '/admin' }, { headers: from('10.9.0.3') })).status).toBe(
      400,
    );
    expect(
      (
        await thief.post(
          '/admin/login/enrol',
          { code: currentTotpCode(secret), enrolmentCode: 'AAAA-AAAA-AAAA', next: '/admin' },
          { headers: from('10.9.0.3') },
        )
      ).status,
    ).toBe(400);
    expect((await thief.get('/admin')).status).toBe(303);
    expect((await prod.sql('select totp_secret is not null as enrolled from admins where id = ?', [admin.id]))[0].enrolled).toBe(false);

    // The admin, given the code by the owner, enrols; the code is then spent.
    const confirmed = await thief.post(
      '/admin/login/enrol',
      { code: currentTotpCode(secret), enrolmentCode: enrolmentCode.toLowerCase(), next: '/admin' },
      { headers: from('10.9.0.3') },
    );
    expect(confirmed.status).toBe(303);
    expect((await thief.get('/admin')).status).toBe(200);
    const [row] = await prod.sql('select totp_secret is not null as enrolled, totp_enrolment_code_hash from admins where id = ?', [admin.id]);
    expect(row).toEqual({ enrolled: true, totp_enrolment_code_hash: null });
    const audit = await prod.sql(`select action from audit_log where subject_id = ? and action like 'admin.totp%' order by created_at, id`, [
      admin.id,
    ]);
    expect(audit.map((a: { action: string }) => a.action)).toEqual(['admin.totp-enrol', 'admin.totp-reset', 'admin.totp-enrol']);
  }, 60_000);
});
