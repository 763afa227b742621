import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { createApp, completeApp } from '../apps/fixtures.ts';
import { createIssuerKeys } from '../../src/modules/trusted-publishing/issuer-keys.ts';
import { applyRetention } from '../../src/modules/retention/retention.service.ts';
import { startIssuer, type TestIssuer } from './oidc-issuer.ts';

let t: TestApp;
let issuer: TestIssuer;
let owner: TestDeveloper;
let ownerKey: string;
let appId: string;
let otherAppId: string;

const publisher = { repository: 'acme/focus-timer', workflow: 'publish.yml', environment: 'production' };

async function exchange(token: string) {
  return t.call('POST', '/api/dev/trusted-publishing/exchange', { body: { token } });
}

beforeAll(async () => {
  issuer = await startIssuer();
  t = await createTestApp({ TRUSTED_PUBLISHING_ISSUERS: issuer.url, ALLOW_PRIVATE_FETCH: 'true' });
  owner = await registerDeveloper(t);
  ownerKey = await mintKey(t, owner);
  appId = (await createApp(t, ownerKey, completeApp())).id;
  otherAppId = (await createApp(t, ownerKey, completeApp())).id;
  const added = await t.call('POST', `/api/dev/apps/${appId}/trusted-publishers`, { token: ownerKey, body: { issuer: issuer.url, ...publisher } });
  expect(added.status).toBe(201);
}, 30_000);

afterAll(async () => {
  await t.close();
  issuer.stop();
}, 30_000);

describe('registering trusted publishers', () => {
  test('owners list what they registered; the issuer must be configured, the repository and workflow well-formed', async () => {
    const listed = await t.call('GET', `/api/dev/apps/${appId}/trusted-publishers`, { token: ownerKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ issuer: issuer.url, ...publisher })]);

    const bad = [
      { issuer: 'https://token.actions.githubusercontent.com', ...publisher },
      { issuer: issuer.url, ...publisher, repository: 'not a repository' },
      { issuer: issuer.url, ...publisher, workflow: '../publish.yml' },
      { issuer: issuer.url, ...publisher, extra: true },
    ];
    for (const body of bad) {
      const refused = await t.call('POST', `/api/dev/apps/${otherAppId}/trusted-publishers`, { token: ownerKey, body });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
    }
    const [{ count }] = await t.sql('select count(*)::int as count from trusted_publishers where app_id = ?', [otherAppId]);
    expect(count).toBe(0);
  });

  test('one workflow publishes one app: the same identity for another app is 409', async () => {
    const twice = await t.call('POST', `/api/dev/apps/${otherAppId}/trusted-publishers`, {
      token: ownerKey,
      body: { issuer: issuer.url, ...publisher },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('TRUSTED_PUBLISHER_EXISTS');
  });

  test("another developer's app is 404, and a key without APP_UPDATE is 403", async () => {
    const stranger = await registerDeveloper(t);
    const strangerKey = await mintKey(t, stranger);
    expect((await t.call('GET', `/api/dev/apps/${appId}/trusted-publishers`, { token: strangerKey })).status).toBe(404);
    const readOnly = await mintKey(t, owner, ['APP_READ']);
    expect((await t.call('GET', `/api/dev/apps/${appId}/trusted-publishers`, { token: readOnly })).body.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('the exchange', () => {
  test('a matching token buys a 15-minute key for that one app, listed among the owner’s keys and audited', async () => {
    const before = Date.now();
    const exchanged = await exchange(await issuer.token());
    expect(exchanged.status).toBe(201);
    expect(exchanged.body.appId).toBe(appId);
    const expiresIn = new Date(exchanged.body.expiresAt).getTime() - before;
    expect(expiresIn).toBeGreaterThan(14 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000 + 5_000);

    const key = exchanged.body.key;
    expect((await t.call('GET', `/api/dev/apps/${appId}`, { token: key })).status).toBe(200);
    const edited = await t.call('PUT', `/api/dev/apps/${appId}`, { token: key, body: { description: 'Published from CI.' } });
    expect(edited.status).toBe(200);
    expect(edited.body.description).toBe('Published from CI.');

    const keys = await t.call('GET', '/api/dev/api-keys', { token: owner.oauthToken });
    const listed = keys.body.data.find((entry: { appId: string | null }) => entry.appId === appId);
    expect(listed).toMatchObject({ scopes: ['APP_READ', 'APP_UPDATE'], maskedKey: `mk_…${key.slice(-4)}` });

    const audit = await t.sql(`select actor, action, subject_id from audit_log where action = 'trusted_publishing.exchanged'`);
    expect(audit).toEqual([expect.objectContaining({ subject_id: appId })]);
  });

  test('the key reaches its app only: another app is 404, everything else 403', async () => {
    const { key } = (await exchange(await issuer.token())).body;
    expect((await t.call('GET', `/api/dev/apps/${otherAppId}`, { token: key })).status).toBe(404);
    for (const [method, path] of [
      ['GET', '/api/dev/apps'],
      ['GET', '/api/dev/api-keys'],
      ['GET', `/api/dev/apps/${appId}/trusted-publishers`],
      ['GET', '/api/dev/me'],
    ] as const) {
      const refused = await t.call(method, path, { token: key });
      expect({ path, status: refused.status, code: refused.body.code }).toEqual({ path, status: 403, code: 'INSUFFICIENT_SCOPE' });
    }
    const minted = await t.call('POST', '/api/dev/api-keys', { token: key, body: { name: 'escape', scopes: ['APP_READ'] } });
    expect(minted.status).toBe(403);
    expect((await t.call('DELETE', `/api/dev/apps/${appId}`, { token: key })).status).toBe(403);
  });

  test('a token is good once', async () => {
    const token = await issuer.token();
    expect((await exchange(token)).status).toBe(201);
    const replay = await exchange(token);
    expect(replay.status).toBe(401);
    expect(replay.body.detail).toContain('already used');
  });

  test('a spent token is remembered until it expires, then housekeeping forgets it', async () => {
    await t.sql(
      `insert into trusted_publishing_tokens (issuer, jti, expires_at) values (?, 'old', now() - interval '1 second'), (?, 'live', now() + interval '5 minutes')`,
      [issuer.url, issuer.url],
    );
    const removed = await applyRetention(t.ctx.orm.em.fork(), t.ctx.config.retention);
    expect(removed['spent trusted-publishing tokens']).toBe(1);
    const left = await t.sql(`select jti from trusted_publishing_tokens where jti in ('old', 'live')`);
    expect(left).toEqual([{ jti: 'live' }]);
  });

  test('two concurrent exchanges of one token: exactly one key', async () => {
    const token = await issuer.token();
    const statuses = (await Promise.all([exchange(token), exchange(token), exchange(token)])).map((response) => response.status).sort();
    expect(statuses).toEqual([201, 401, 401]);
  });

  test('each mismatch is refused with a detail naming the check that failed, and mints nothing', async () => {
    const [{ count: keysBefore }] = await t.sql('select count(*)::int as count from api_keys');
    const cases: [string, Promise<string>, string][] = [
      ['repository', issuer.token({ repository: 'mallory/focus-timer' }), 'repository mallory/focus-timer'],
      ['workflow', issuer.token({ job_workflow_ref: 'acme/focus-timer/.github/workflows/other.yml@refs/heads/main' }), 'workflow other.yml'],
      ['environment', issuer.token({ environment: 'staging' }), 'environment production, not staging'],
      ['audience', issuer.token({ aud: 'someone-else' }), 'audience'],
      ['issuer', issuer.token({ iss: 'https://evil.example.com' }), 'not a trusted publishing issuer'],
      ['expired', issuer.token({}, { expiresIn: Math.floor(Date.now() / 1000) - 60 }), 'expired'],
      ['not a JWT', Promise.resolve('not-a-jwt'), 'not a JWT'],
      ['no jti', issuer.token({ jti: undefined }), '"jti"'],
      ['unknown key', issuer.token({}, { kid: 'key-that-does-not-exist' }), 'key the issuer does not publish'],
    ];
    for (const [check, token, detail] of cases) {
      const refused = await exchange(await token);
      expect({ check, status: refused.status, code: refused.body.code }).toEqual({ check, status: 401, code: 'UNAUTHENTICATED' });
      expect(refused.body.detail).toContain(detail);
    }
    const [{ count: keysAfter }] = await t.sql('select count(*)::int as count from api_keys');
    expect(keysAfter).toBe(keysBefore);
  });

  test('a removed publisher, or a suspended owner, exchanges no more', async () => {
    const other = await registerDeveloper(t);
    const otherKey = await mintKey(t, other);
    const app = await createApp(t, otherKey, completeApp());
    const added = await t.call('POST', `/api/dev/apps/${app.id}/trusted-publishers`, {
      token: otherKey,
      body: { issuer: issuer.url, repository: 'acme/other', workflow: 'release.yaml' },
    });
    const token = () =>
      issuer.token({ repository: 'acme/other', job_workflow_ref: 'acme/other/.github/workflows/release.yaml@refs/tags/v1', environment: undefined });
    expect((await exchange(await token())).status).toBe(201);
    await t.sql(`update developers set status = 'SUSPENDED' where id = ?`, [other.id]);
    expect((await exchange(await token())).body.detail).toContain('can no longer publish');
    await t.sql(`update developers set status = 'VERIFIED' where id = ?`, [other.id]);
    const removed = await t.call('DELETE', `/api/dev/apps/${app.id}/trusted-publishers/${added.body.id}`, { token: otherKey });
    expect(removed.status).toBe(200);
    expect((await exchange(await token())).body.detail).toContain('no trusted publisher is registered for repository acme/other');
  });
});

describe("the issuer's keys", () => {
  test('fetched through discovery, cached, and fetched again when a token names a key the cache lacks', async () => {
    const own = await startIssuer();
    try {
      const keysFor = createIssuerKeys({ allowPrivate: true, unknownKidCooldownMs: 0 });
      const first = await keysFor(own.url, 'key-1');
      expect(await keysFor(own.url, 'key-1')).toBe(first);
      expect(own.requests.filter((path) => path === '/jwks')).toHaveLength(1);
      await own.rotate();
      const rotated = await keysFor(own.url, 'a-new-kid');
      expect(rotated).not.toBe(first);
      expect(own.requests.filter((path) => path === '/jwks')).toHaveLength(2);
    } finally {
      own.stop();
    }
  });

  test('a private issuer address is refused unless private fetches are allowed', async () => {
    const keysFor = createIssuerKeys({ allowPrivate: false });
    expect(keysFor(issuer.url, undefined)).rejects.toThrow('could not be read');
  });
});
