import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

/**
 * A CI identity provider shaped like GitHub Actions', served on 127.0.0.1: an OpenID discovery
 * document, its key set, and tokens signed with its key carrying the claims a job's token has.
 */
export interface TestIssuer {
  url: string;
  /** A job's token; `claims` override the defaults (repository acme/focus-timer, workflow publish.yml, environment production). */
  token(claims?: Record<string, unknown>, options?: { expiresIn?: string | number; kid?: string }): Promise<string>;
  /** Replaces the signing key (a provider rotating keys): the key set then lists only the new one. */
  rotate(): Promise<void>;
  requests: string[];
  stop(): void;
}

export async function startIssuer(): Promise<TestIssuer> {
  let keys = await newKey('key-1');
  const requests: string[] = [];
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request): Response {
      const path = new URL(request.url).pathname;
      requests.push(path);
      if (path === '/.well-known/openid-configuration') return Response.json({ issuer: url, jwks_uri: `${url}/jwks` });
      if (path === '/jwks') return Response.json({ keys: [keys.publicJwk] });
      return new Response('not found', { status: 404 });
    },
  });
  const url: string = `http://127.0.0.1:${server.port}`;
  let counter = 0;
  return {
    url,
    requests,
    async token(claims = {}, options = {}) {
      counter += 1;
      const repository = (claims.repository as string | undefined) ?? 'acme/focus-timer';
      return new SignJWT({
        repository,
        job_workflow_ref: `${repository}/.github/workflows/publish.yml@refs/heads/main`,
        environment: 'production',
        jti: `job-${counter}-${crypto.randomUUID()}`,
        ...claims,
      })
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? keys.kid })
        .setIssuer((claims.iss as string | undefined) ?? url)
        .setAudience((claims.aud as string | undefined) ?? 'marketplace')
        .setSubject(`repo:${repository}:environment:production`)
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '5m')
        .sign(keys.privateKey);
    },
    async rotate() {
      keys = await newKey(`key-${Date.now()}`);
    },
    stop: () => void server.stop(true),
  };
}

async function newKey(kid: string): Promise<{ kid: string; privateKey: CryptoKey; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}
