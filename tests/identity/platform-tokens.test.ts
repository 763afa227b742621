import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { createTestApp, type TestApp } from '../support/harness.ts';

/**
 * The platform's OAuth server is the one thing outside this machine, so it is stood in for
 * by small servers on 127.0.0.1: a JWKS endpoint and an RFC 7662 introspection endpoint.
 */
const ISSUER = 'https://id.platform.test';
const AUDIENCE = 'marketplace';

let signingKey: CryptoKey;
let strangerKey: CryptoKey;
let jwksServer: ReturnType<typeof Bun.serve>;

function sign(claims: Record<string, unknown>, options: { key?: CryptoKey; issuer?: string; audience?: string; expires?: string } = {}) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: 'platform-1' })
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(options.expires ?? '5m')
    .sign(options.key ?? signingKey);
}

const register = (t: TestApp, token: string, subject: string) =>
  t.call('POST', '/api/dev/register', { token, body: { name: 'J', email: `${subject}@example.com`, platformUserId: subject } });

describe('JWKS verification', () => {
  let t: TestApp;
  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    signingKey = pair.privateKey;
    strangerKey = (await generateKeyPair('RS256')).privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'platform-1', alg: 'RS256', use: 'sig' };
    jwksServer = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json({ keys: [jwk] }) });
    t = await createTestApp({
      OAUTH_JWKS_URL: `http://127.0.0.1:${jwksServer.port}/jwks`,
      OAUTH_ISSUER: ISSUER,
      OAUTH_AUDIENCE: AUDIENCE,
      OAUTH_ALLOWED_CLIENTS: 'platform-web,platform-mobile',
    });
  });
  afterAll(async () => {
    await t.close();
    jwksServer.stop(true);
  });

  test('a first-party token (azp or client_id) is accepted', async () => {
    expect((await register(t, await sign({ sub: 'jwks-1', azp: 'platform-web' }), 'jwks-1')).status).toBe(201);
    expect((await register(t, await sign({ sub: 'jwks-2', client_id: 'platform-mobile' }), 'jwks-2')).status).toBe(201);
  });

  test('a token minted for a client not in OAUTH_ALLOWED_CLIENTS is 401', async () => {
    const response = await register(t, await sign({ sub: 'jwks-3', azp: 'some-third-party-app' }), 'jwks-3');
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('UNAUTHENTICATED');
    expect(await t.sql(`select 1 from developers where platform_user_id = 'jwks-3'`)).toHaveLength(0);
  });

  test.each([
    ['no client at all', () => sign({ sub: 'jwks-4' })],
    ['the wrong issuer', () => sign({ sub: 'jwks-4', azp: 'platform-web' }, { issuer: 'https://evil.test' })],
    ['the wrong audience', () => sign({ sub: 'jwks-4', azp: 'platform-web' }, { audience: 'another-api' })],
    ['an expired token', () => sign({ sub: 'jwks-4', azp: 'platform-web' }, { expires: '-5m' })],
    ['a key the platform does not publish', () => sign({ sub: 'jwks-4', azp: 'platform-web' }, { key: strangerKey })],
  ])('%s is 401', async (_label, makeToken) => {
    expect((await register(t, await makeToken(), 'jwks-4')).status).toBe(401);
  });

  test('a token without `exp` is 401: a credential that never expires cannot be taken back', async () => {
    const eternal = await new SignJWT({ sub: 'jwks-7', azp: 'platform-web' })
      .setProtectedHeader({ alg: 'RS256', kid: 'platform-1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .sign(signingKey);
    const response = await register(t, eternal, 'jwks-7');
    expect(response.status).toBe(401);
    expect(await t.sql(`select 1 from developers where platform_user_id = 'jwks-7'`)).toHaveLength(0);
  });

  test('a symmetric (HS256) token is refused: no algorithm confusion', async () => {
    const forged = await new SignJWT({ sub: 'jwks-5', azp: 'platform-web' })
      .setProtectedHeader({ alg: 'HS256', kid: 'platform-1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a-guessable-shared-secret-value!'));
    expect((await register(t, forged, 'jwks-5')).status).toBe(401);
  });

  test('dev tokens cannot be minted when a real verifier is configured', async () => {
    expect(t.token('jwks-6')).rejects.toThrow(/only in dev identity mode/);
  });
});

describe('introspection verification (RFC 7662)', () => {
  let t: TestApp;
  let server: ReturnType<typeof Bun.serve>;
  const seenAuthorization: string[] = [];
  const tokens: Record<string, Record<string, unknown>> = {
    'good-token': { active: true, sub: 'intro-1', client_id: 'platform-web', exp: Math.floor(Date.now() / 1000) + 300 },
    'third-party-token': { active: true, sub: 'intro-2', client_id: 'other-app' },
    'revoked-token': { active: false },
    'eternal-token': { active: true, sub: 'intro-4', client_id: 'platform-web' },
  };
  beforeAll(async () => {
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(request) {
        seenAuthorization.push(request.headers.get('authorization') ?? '');
        const form = new URLSearchParams(await request.text());
        return Response.json(tokens[form.get('token') ?? ''] ?? { active: false });
      },
    });
    t = await createTestApp({
      OAUTH_INTROSPECTION_URL: `http://127.0.0.1:${server.port}/introspect`,
      OAUTH_INTROSPECTION_CLIENT_ID: 'marketplace',
      OAUTH_INTROSPECTION_CLIENT_SECRET: 's3cret',
      OAUTH_ALLOWED_CLIENTS: 'platform-web',
    });
  });
  afterAll(async () => {
    await t.close();
    server.stop(true);
  });

  test('an active first-party token is accepted; the service authenticates to the introspection endpoint', async () => {
    expect((await register(t, 'good-token', 'intro-1')).status).toBe(201);
    expect(seenAuthorization.at(-1)).toBe(`Basic ${btoa('marketplace:s3cret')}`);
  });

  test('inactive, unknown and third-party tokens are 401', async () => {
    expect((await register(t, 'third-party-token', 'intro-2')).status).toBe(401);
    expect((await register(t, 'revoked-token', 'intro-3')).status).toBe(401);
    expect((await register(t, 'made-up', 'intro-3')).status).toBe(401);
  });

  test('an active token the platform gives no `exp` is 401', async () => {
    expect((await register(t, 'eternal-token', 'intro-4')).status).toBe(401);
  });
});

describe('dev identity', () => {
  test('a dev token without `exp` is 401 too', async () => {
    const t = await createTestApp();
    try {
      const { readFileSync } = await import('node:fs');
      const key = new Uint8Array(Buffer.from(readFileSync(`${t.ctx.config.dataDir}/dev-identity.key`, 'utf8').trim(), 'base64url'));
      const eternal = await new SignJWT({ sub: 'dev-eternal', azp: 'marketplace-dev' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('marketplace-dev-identity')
        .setAudience('marketplace')
        .sign(key);
      expect((await register(t, eternal, 'dev-eternal')).status).toBe(401);
      // The same token with an expiry is accepted: the refusal is about `exp` alone.
      expect((await register(t, await t.token('dev-mortal'), 'dev-mortal')).status).toBe(201);
    } finally {
      await t.close();
    }
  });
});
