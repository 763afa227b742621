import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const countDevelopers = async () => Number((await t.sql('select count(*) as n from developers'))[0].n);

describe('POST /api/dev/register', () => {
  test('registers a developer pending verification and returns the profile', async () => {
    const token = await t.token('reg-1');
    const response = await t.call('POST', '/api/dev/register', {
      token,
      body: {
        name: 'Ada',
        email: 'ada@example.com',
        platformUserId: 'reg-1',
        companyName: 'Engines Ltd',
        websiteUrl: 'https://engines.example',
        bio: 'Numbers.\nMostly.',
      },
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(
      ['bio', 'companyName', 'createdAt', 'email', 'id', 'name', 'platformUserId', 'status', 'updatedAt', 'websiteUrl'].sort(),
    );
    expect(response.body).toMatchObject({ name: 'Ada', platformUserId: 'reg-1', status: 'PENDING_VERIFICATION', companyName: 'Engines Ltd' });
    expect(response.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('the token subject must be the platformUserId: 403 PLATFORM_USER_MISMATCH', async () => {
    const before = await countDevelopers();
    const response = await t.call('POST', '/api/dev/register', {
      token: await t.token('someone-else'),
      body: { name: 'Eve', email: 'eve@example.com', platformUserId: 'victim' },
    });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('PLATFORM_USER_MISMATCH');
    expect(await countDevelopers()).toBe(before);
  });

  test('a duplicate platformUserId or e-mail (any case) is 409 DEVELOPER_EXISTS', async () => {
    const token = await t.token('dup-1');
    await t.call('POST', '/api/dev/register', { token, body: { name: 'A', email: 'dup@example.com', platformUserId: 'dup-1' } });
    const before = await countDevelopers();
    const again = await t.call('POST', '/api/dev/register', { token, body: { name: 'A', email: 'other@example.com', platformUserId: 'dup-1' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('DEVELOPER_EXISTS');
    const sameEmail = await t.call('POST', '/api/dev/register', {
      token: await t.token('dup-2'),
      body: { name: 'B', email: 'DUP@example.com', platformUserId: 'dup-2' },
    });
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.body.code).toBe('DEVELOPER_EXISTS');
    expect(await countDevelopers()).toBe(before);
  });

  test('without a token, with an API key, or with a forged token: 401 with WWW-Authenticate', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    const body = { name: 'X', email: 'x@example.com', platformUserId: 'x' };
    for (const token of [undefined, key, 'not-a-jwt', `${(await t.token('x')).slice(0, -4)}AAAA`]) {
      const response = await t.call('POST', '/api/dev/register', { token, body });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('UNAUTHENTICATED');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  test('a token issued to a client that is not first-party is 401', async () => {
    const response = await t.call('POST', '/api/dev/register', {
      token: await t.token('third-party-user', { clientId: 'some-third-party-app' }),
      body: { name: 'X', email: 'tp@example.com', platformUserId: 'third-party-user' },
    });
    expect(response.status).toBe(401);
  });

  test('an expired token is 401', async () => {
    const response = await t.call('POST', '/api/dev/register', {
      token: await t.token('expired-user', { expiresIn: '-1m' }),
      body: { name: 'X', email: 'exp@example.com', platformUserId: 'expired-user' },
    });
    expect(response.status).toBe(401);
  });

  test.each([
    ['missing fields', {}],
    ['empty name', { name: '', email: 'v@example.com', platformUserId: 'v' }],
    ['bad e-mail', { name: 'V', email: 'not-an-email', platformUserId: 'v' }],
    ['control characters', { name: 'V\u0007', email: 'v@example.com', platformUserId: 'v' }],
    ['non-http website', { name: 'V', email: 'v@example.com', platformUserId: 'v', websiteUrl: 'javascript:alert(1)' }],
    ['unknown field', { name: 'V', email: 'v@example.com', platformUserId: 'v', status: 'VERIFIED' }],
    ['overlong name', { name: 'V'.repeat(121), email: 'v@example.com', platformUserId: 'v' }],
  ])('invalid input (%s) is 400 VALIDATION_FAILED with field paths', async (_label, body) => {
    const before = await countDevelopers();
    const response = await t.call('POST', '/api/dev/register', { token: await t.token('v'), body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(response.body.errors.length).toBeGreaterThan(0);
    expect(await countDevelopers()).toBe(before);
  });
});

describe('mail goes only where the platform says the developer is', () => {
  test('registration must use the verified e-mail address the token carries (any case); an unverified claim binds nothing', async () => {
    const token = await t.token('mail-1', { email: 'Grace@Example.com' });
    const before = await countDevelopers();
    const elsewhere = await t.call('POST', '/api/dev/register', {
      token,
      body: { name: 'G', email: 'attacker@example.com', platformUserId: 'mail-1' },
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.errors).toEqual([{ path: 'email', message: 'must be the e-mail address your platform account has verified' }]);
    expect(await countDevelopers()).toBe(before);
    expect(
      (await t.call('POST', '/api/dev/register', { token, body: { name: 'G', email: 'grace@example.com', platformUserId: 'mail-1' } })).status,
    ).toBe(201);
    const unverified = await t.token('mail-2', { email: 'mail-2@example.com', emailVerified: false });
    expect(
      (await t.call('POST', '/api/dev/register', { token: unverified, body: { name: 'H', email: 'other@example.com', platformUserId: 'mail-2' } }))
        .status,
    ).toBe(201);
  });

  test('an API key may not change the e-mail address (403 OAUTH_TOKEN_REQUIRED); the OAuth token may, and the old address is told', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer, ['APP_READ']);
    const byKey = await t.call('PUT', '/api/dev/me', { token: key, body: { email: 'redirected@example.com', name: 'Also changed?' } });
    expect(byKey.status).toBe(403);
    expect(byKey.body.code).toBe('OAUTH_TOKEN_REQUIRED');
    expect((await t.sql('select email, name from developers where id = ?', [developer.id]))[0]).toMatchObject({ email: developer.email });
    // The same address in another case is no change, so a key may send it.
    expect((await t.call('PUT', '/api/dev/me', { token: key, body: { email: developer.email.toUpperCase() } })).status).toBe(200);

    const byToken = await t.call('PUT', '/api/dev/me', { token: developer.oauthToken, body: { email: 'moved@example.com' } });
    expect(byToken.status).toBe(200);
    expect(byToken.body.email).toBe('moved@example.com');
    const told = await eventually(
      async () =>
        (
          await t.sql(`select to_address, subject, text_body from emails where kind = 'developer-email-changed' and developer_id = ?`, [developer.id])
        )[0],
    );
    expect(told.to_address).toBe(developer.email.toUpperCase());
    expect(told.text_body).toContain('moved@example.com');
    const [audit] = await t.sql(`select before, after from audit_log where action = 'developer.email-change' and subject_id = ?`, [developer.id]);
    expect(audit).toEqual({ before: { email: developer.email.toUpperCase() }, after: { email: 'moved@example.com' } });
  });

  test('with a verified claim on the token, the address may change only to that one', async () => {
    const developer = await registerDeveloper(t);
    const token = await t.token(developer.platformUserId, { email: 'new-home@example.com' });
    const other = await t.call('PUT', '/api/dev/me', { token, body: { email: 'somewhere-else@example.com' } });
    expect(other.status).toBe(400);
    expect((await t.call('PUT', '/api/dev/me', { token, body: { email: 'new-home@example.com' } })).status).toBe(200);
  });
});

describe('GET and PUT /api/dev/me', () => {
  test('GET needs an API key: the OAuth token is 403 API_KEY_REQUIRED, nothing is 401', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer, ['APP_READ']);
    const withKey = await t.call('GET', '/api/dev/me', { token: key });
    expect(withKey.status).toBe(200);
    expect(withKey.body.id).toBe(developer.id);
    const withToken = await t.call('GET', '/api/dev/me', { token: developer.oauthToken });
    expect(withToken.status).toBe(403);
    expect(withToken.body.code).toBe('API_KEY_REQUIRED');
    expect((await t.call('GET', '/api/dev/me')).status).toBe(401);
  });

  test('PUT updates with the OAuth token or a key; omitted unchanged, null clears; platformUserId never changes', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer, ['APP_READ']);
    const first = await t.call('PUT', '/api/dev/me', {
      token: developer.oauthToken,
      body: { companyName: 'Acme', bio: 'We build things', websiteUrl: 'https://acme.example' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ companyName: 'Acme', bio: 'We build things', websiteUrl: 'https://acme.example' });
    const second = await t.call('PUT', '/api/dev/me', { token: key, body: { bio: null, name: 'Renamed' } });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ companyName: 'Acme', bio: null, name: 'Renamed', platformUserId: developer.platformUserId });
    const smuggled = await t.call('PUT', '/api/dev/me', { token: key, body: { platformUserId: 'someone-else' } });
    expect(smuggled.status).toBe(400);
    const [row] = await t.sql('select platform_user_id from developers where id = ?', [developer.id]);
    expect(row.platform_user_id).toBe(developer.platformUserId);
  });

  test('PUT to an e-mail another developer has is 409 DEVELOPER_EXISTS and changes nothing', async () => {
    const a = await registerDeveloper(t);
    const b = await registerDeveloper(t);
    const response = await t.call('PUT', '/api/dev/me', { token: b.oauthToken, body: { email: a.email.toUpperCase(), name: 'Changed' } });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('DEVELOPER_EXISTS');
    const [row] = await t.sql('select email, name from developers where id = ?', [b.id]);
    expect(row.email).toBe(b.email);
    expect(row.name).not.toBe('Changed');
  });

  test('PUT with the OAuth token of an account that never registered is 404', async () => {
    const response = await t.call('PUT', '/api/dev/me', { token: await t.token('never-registered'), body: { name: 'X' } });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('NOT_FOUND');
  });

  test('a null name (required field) is refused', async () => {
    const developer = await registerDeveloper(t);
    const response = await t.call('PUT', '/api/dev/me', { token: developer.oauthToken, body: { name: null } });
    expect(response.status).toBe(400);
  });
});
