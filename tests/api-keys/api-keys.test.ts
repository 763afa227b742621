import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ALL_SCOPES, createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { generateKey, isWellFormedKey } from '../../src/modules/api-keys/key-format.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const keysOf = (developerId: string) => t.sql('select * from api_keys where developer_id = ? order by created_at', [developerId]);
const DAY = 86_400_000;

describe('key format', () => {
  test('prefix, 32 random base62 characters and a checksum; a one-character typo fails the checksum', () => {
    const key = generateKey();
    expect(key).toMatch(/^mk_[0-9A-Za-z]{38}$/);
    expect(isWellFormedKey(key)).toBe(true);
    const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(isWellFormedKey(typo)).toBe(false);
    expect(isWellFormedKey(key.slice(0, -1))).toBe(false);
    expect(new Set(Array.from({ length: 200 }, generateKey)).size).toBe(200);
  });
});

describe('POST /api/dev/api-keys', () => {
  test('returns the full key once; stores only a keyed hash with the secret id', async () => {
    const developer = await registerDeveloper(t);
    const response = await t.call('POST', '/api/dev/api-keys', {
      token: developer.oauthToken,
      body: { name: 'CI', scopes: ['APP_READ', 'APP_CREATE', 'APP_READ'], expiresInDays: 30 },
    });
    expect(response.status).toBe(201);
    const { key, maskedKey, scopes, expiresAt, id } = response.body;
    expect(isWellFormedKey(key)).toBe(true);
    expect(maskedKey).toBe(`mk_…${key.slice(-4)}`);
    expect(scopes).toEqual(['APP_CREATE', 'APP_READ']);
    expect(Math.abs(new Date(expiresAt).getTime() - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
    const [row] = await keysOf(developer.id);
    expect(row.id).toBe(id);
    expect(row.secret_id).toBe('dev');
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(key.slice(3));

    const list = await t.call('GET', '/api/dev/api-keys', { token: developer.oauthToken });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ id, maskedKey, revokedAt: null });
    expect(list.body.data[0].key).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(JSON.stringify(list.body)).not.toContain(row.key_hash);
  });

  test('expiry defaults to 90 days and is bounded to 1–365', async () => {
    const developer = await registerDeveloper(t);
    const response = await t.call('POST', '/api/dev/api-keys', { token: developer.oauthToken, body: { name: 'default', scopes: ['APP_READ'] } });
    expect(Math.abs(new Date(response.body.expiresAt).getTime() - (Date.now() + 90 * DAY))).toBeLessThan(60_000);
    for (const expiresInDays of [0, 366, 1.5, -3]) {
      const refused = await t.call('POST', '/api/dev/api-keys', {
        token: developer.oauthToken,
        body: { name: 'x', scopes: ['APP_READ'], expiresInDays },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
    }
    expect(await keysOf(developer.id)).toHaveLength(1);
  });

  test.each([
    ['no scopes', { name: 'x', scopes: [] }],
    ['an unknown scope', { name: 'x', scopes: ['ADMIN'] }],
    ['no name', { scopes: ['APP_READ'] }],
    ['an empty name', { name: '', scopes: ['APP_READ'] }],
    ['a name with a newline', { name: 'a\nb', scopes: ['APP_READ'] }],
  ])('%s is 400 VALIDATION_FAILED and creates nothing', async (_label, body) => {
    const developer = await registerDeveloper(t);
    const response = await t.call('POST', '/api/dev/api-keys', { token: developer.oauthToken, body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(await keysOf(developer.id)).toHaveLength(0);
  });

  test('a developer who is not verified gets 403 DEVELOPER_NOT_VERIFIED', async () => {
    const developer = await registerDeveloper(t, { verified: false });
    const response = await t.call('POST', '/api/dev/api-keys', { token: developer.oauthToken, body: { name: 'x', scopes: ['APP_READ'] } });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('DEVELOPER_NOT_VERIFIED');
    expect(await keysOf(developer.id)).toHaveLength(0);
  });

  test('a suspended developer is told they are suspended (403 DEVELOPER_SUSPENDED), not that they are unverified', async () => {
    const developer = await registerDeveloper(t);
    await transitionDeveloper({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs }, developer.id, 'suspend', CLI_ACTOR);
    const response = await t.call('POST', '/api/dev/api-keys', { token: developer.oauthToken, body: { name: 'x', scopes: ['APP_READ'] } });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('DEVELOPER_SUSPENDED');
    expect(response.body.detail).toContain('suspended');
    expect(await keysOf(developer.id)).toHaveLength(0);
  });

  test('at most 20 active keys: the 21st is 409 LIMIT_EXCEEDED; revoking one makes room', async () => {
    const developer = await registerDeveloper(t);
    const created = await Promise.all(Array.from({ length: 20 }, () => mintKey(t, developer, ['APP_READ'])));
    expect(created).toHaveLength(20);
    const refused = await t.call('POST', '/api/dev/api-keys', { token: developer.oauthToken, body: { name: 'x', scopes: ['APP_READ'] } });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('LIMIT_EXCEEDED');
    expect(await keysOf(developer.id)).toHaveLength(20);
    const [first] = await keysOf(developer.id);
    await t.call('DELETE', `/api/dev/api-keys/${first.id}`, { token: developer.oauthToken });
    expect((await t.call('POST', '/api/dev/api-keys', { token: developer.oauthToken, body: { name: 'x', scopes: ['APP_READ'] } })).status).toBe(201);
  });
});

describe('using keys', () => {
  test('a revoked key is refused on the very next request', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    expect((await t.call('GET', '/api/dev/me', { token: key })).status).toBe(200);
    const [row] = await keysOf(developer.id);
    const revoked = await t.call('DELETE', `/api/dev/api-keys/${row.id}`, { token: developer.oauthToken });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    const after = await t.call('GET', '/api/dev/me', { token: key });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('UNAUTHENTICATED');
  });

  test('an expired key is 401', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    await t.sql(`update api_keys set expires_at = now() - interval '1 second' where developer_id = ?`, [developer.id]);
    expect((await t.call('GET', '/api/dev/me', { token: key })).status).toBe(401);
  });

  test("a suspended developer's keys are 401", async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    await t.sql(`update developers set status = 'SUSPENDED' where id = ?`, [developer.id]);
    expect((await t.call('GET', '/api/dev/me', { token: key })).status).toBe(401);
  });

  test('a malformed, mistyped or unknown key is 401', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    const typo = key.slice(0, -6) + (key.at(-6) === 'x' ? 'y' : 'x') + key.slice(-5);
    for (const token of ['mk_short', typo, generateKey(), 'Basic abc']) {
      const response = await t.call('GET', '/api/dev/me', { token });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect((await t.call('GET', '/api/dev/me', { headers: { authorization: `Token ${key}` } })).status).toBe(401);
  });

  test('lastUsedAt is recorded, and written at most once a minute', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    await t.call('GET', '/api/dev/me', { token: key });
    const deadline = Date.now() + 5000;
    let first: Date | null = null;
    while (!first && Date.now() < deadline) {
      first = (await keysOf(developer.id))[0].last_used_at;
      if (!first) await Bun.sleep(20);
    }
    expect(first).not.toBeNull();
    await t.call('GET', '/api/dev/me', { token: key });
    await Bun.sleep(100);
    expect((await keysOf(developer.id))[0].last_used_at).toEqual(first);
  });
});

describe('key lineage', () => {
  test('a key can mint a key with a subset of its scopes, never more, never outliving it', async () => {
    const developer = await registerDeveloper(t);
    const parent = await mintKey(t, developer, ['APP_READ', 'APP_UPDATE'], { expiresInDays: 10 });
    const child = await t.call('POST', '/api/dev/api-keys', { token: parent, body: { name: 'child', scopes: ['APP_READ'], expiresInDays: 365 } });
    expect(child.status).toBe(201);
    const [parentRow] = await keysOf(developer.id);
    expect(child.body.parentKeyId).toBe(parentRow.id);
    expect(new Date(child.body.expiresAt).getTime()).toBe(new Date(parentRow.expires_at).getTime());

    const wider = await t.call('POST', '/api/dev/api-keys', { token: parent, body: { name: 'wider', scopes: ['APP_READ', 'APP_DELETE'] } });
    expect(wider.status).toBe(403);
    expect(wider.body.code).toBe('INSUFFICIENT_SCOPE');
    expect(await keysOf(developer.id)).toHaveLength(2);
  });

  test('revoking a key revokes the keys it minted, down the line', async () => {
    const developer = await registerDeveloper(t);
    const parent = await mintKey(t, developer, ALL_SCOPES);
    const child = (await t.call('POST', '/api/dev/api-keys', { token: parent, body: { name: 'child', scopes: ['APP_READ'] } })).body;
    const grandchild = (await t.call('POST', '/api/dev/api-keys', { token: child.key, body: { name: 'grandchild', scopes: ['APP_READ'] } })).body;
    const sibling = await mintKey(t, developer, ['APP_READ']);
    const parentId = (await keysOf(developer.id))[0].id;
    const response = await t.call('DELETE', `/api/dev/api-keys/${parentId}`, { token: parent });
    expect(response.status).toBe(200);
    for (const key of [parent, child.key, grandchild.key]) expect((await t.call('GET', '/api/dev/me', { token: key })).status).toBe(401);
    expect((await t.call('GET', '/api/dev/me', { token: sibling })).status).toBe(200);
  });

  test('a key may revoke only itself and its descendants; other keys answer 404 and stay active', async () => {
    const developer = await registerDeveloper(t);
    const first = await mintKey(t, developer, ['APP_READ']);
    const second = await mintKey(t, developer, ['APP_READ']);
    const child = (await t.call('POST', '/api/dev/api-keys', { token: second, body: { name: 'child', scopes: ['APP_READ'] } })).body;
    const [firstRow, secondRow] = await keysOf(developer.id);

    const sideways = await t.call('DELETE', `/api/dev/api-keys/${secondRow.id}`, { token: first });
    expect(sideways.status).toBe(404);
    expect(sideways.body.code).toBe('NOT_FOUND');
    const upwards = await t.call('DELETE', `/api/dev/api-keys/${secondRow.id}`, { token: child.key });
    expect(upwards.status).toBe(404);
    expect((await t.call('GET', '/api/dev/me', { token: second })).status).toBe(200);

    expect((await t.call('DELETE', `/api/dev/api-keys/${child.id}`, { token: second })).status).toBe(200);
    expect((await t.call('DELETE', `/api/dev/api-keys/${firstRow.id}`, { token: first })).status).toBe(200);
    expect((await t.call('GET', '/api/dev/me', { token: first })).status).toBe(401);
  });

  test("another developer's key is 404 (never revealed), and a malformed id is 400", async () => {
    const a = await registerDeveloper(t);
    const b = await registerDeveloper(t);
    await mintKey(t, a, ['APP_READ']);
    const [aKey] = await keysOf(a.id);
    const response = await t.call('DELETE', `/api/dev/api-keys/${aKey.id}`, { token: b.oauthToken });
    expect(response.status).toBe(404);
    expect((await keysOf(a.id))[0].revoked_at).toBeNull();
    expect((await t.call('GET', '/api/dev/api-keys', { token: b.oauthToken })).body.data).toHaveLength(0);
    const malformed = await t.call('DELETE', '/api/dev/api-keys/not-a-uuid', { token: b.oauthToken });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('VALIDATION_FAILED');
    const unknown = await t.call('DELETE', `/api/dev/api-keys/${crypto.randomUUID()}`, { token: b.oauthToken });
    expect(unknown.status).toBe(404);
  });
});
