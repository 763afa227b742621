import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthConfig } from '../../config.ts';
import type { Logger } from '../../lib/logger.ts';

/**
 * Platform OAuth tokens are verified, never trusted. Three verifiers share one shape:
 * JWT against the platform's JWKS, RFC 7662 introspection, and a development-only signer
 * whose key lives in the data directory.
 */
export interface PlatformIdentity {
  /** The token's subject: the developer's platformUserId. */
  subject: string;
  clientId: string;
  email?: string;
  /** The platform vouches for `email` (the `email_verified` claim): registration and changes must use it. */
  emailVerified: boolean;
  name?: string;
}

export interface TokenVerifier {
  readonly mode: OAuthConfig['mode'];
  /** Resolves to null for any token that is not a valid, first-party platform token. */
  verify(token: string): Promise<PlatformIdentity | null>;
}

/** A token that never expires is a credential nobody can take back: every verifier requires `exp`. */
const REQUIRED_CLAIMS = ['exp'];

function identityFromClaims(claims: JWTPayload & Record<string, unknown>, allowedClients: string[]): PlatformIdentity | null {
  const clientId = typeof claims.azp === 'string' ? claims.azp : typeof claims.client_id === 'string' ? claims.client_id : undefined;
  // A third-party app holding its users' tokens must not act as them here.
  if (!clientId || !allowedClients.includes(clientId)) return null;
  if (typeof claims.sub !== 'string' || claims.sub.length === 0) return null;
  return {
    subject: claims.sub,
    clientId,
    email: typeof claims.email === 'string' ? claims.email : undefined,
    emailVerified: typeof claims.email === 'string' && claims.email_verified === true,
    name: typeof claims.name === 'string' ? claims.name : undefined,
  };
}

function jwksVerifier(config: Extract<OAuthConfig, { mode: 'jwks' }>, logger: Logger): TokenVerifier {
  const jwks = createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 1500, cooldownDuration: 30_000 });
  return {
    mode: 'jwks',
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: config.issuer,
          audience: config.audience,
          clockTolerance: 30,
          requiredClaims: REQUIRED_CLAIMS,
        });
        return identityFromClaims(payload, config.allowedClients);
      } catch (error) {
        logger.debug('platform token refused', { reason: (error as Error).message });
        return null;
      }
    },
  };
}

function introspectionVerifier(config: Extract<OAuthConfig, { mode: 'introspection' }>, logger: Logger): TokenVerifier {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (config.clientId) {
    headers.authorization = `Basic ${btoa(`${encodeURIComponent(config.clientId)}:${encodeURIComponent(config.clientSecret ?? '')}`)}`;
  }
  return {
    mode: 'introspection',
    async verify(token) {
      try {
        const response = await fetch(config.introspectionUrl, {
          method: 'POST',
          headers,
          body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
          signal: AbortSignal.timeout(1500),
        });
        if (!response.ok) {
          logger.warn('token introspection failed', { status: response.status });
          return null;
        }
        const claims = (await response.json()) as JWTPayload & Record<string, unknown>;
        if (claims.active !== true) return null;
        if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) return null;
        return identityFromClaims(claims, config.allowedClients);
      } catch (error) {
        logger.warn('token introspection failed', { reason: (error as Error).message });
        return null;
      }
    },
  };
}

const DEV_ISSUER = 'marketplace-dev-identity';
const DEV_AUDIENCE = 'marketplace';

function devKey(dataDir: string): Uint8Array {
  const file = join(dataDir, 'dev-identity.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url'), { mode: 0o600 });
  }
  return new Uint8Array(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url'));
}

function devVerifier(config: Extract<OAuthConfig, { mode: 'dev' }>, dataDir: string): TokenVerifier {
  const key = devKey(dataDir);
  return {
    mode: 'dev',
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          issuer: DEV_ISSUER,
          audience: DEV_AUDIENCE,
          algorithms: ['HS256'],
          requiredClaims: REQUIRED_CLAIMS,
        });
        return identityFromClaims(payload, config.allowedClients);
      } catch {
        return null;
      }
    },
  };
}

/** Mints a development token (`bun run cli token`); only possible in dev identity mode. */
export async function mintDevToken(
  config: OAuthConfig,
  dataDir: string,
  claims: { subject: string; email?: string; name?: string; clientId?: string; expiresIn?: string; emailVerified?: boolean },
): Promise<string> {
  if (config.mode !== 'dev') {
    throw new Error(`Tokens can be minted only in dev identity mode (this configuration verifies with ${config.mode})`);
  }
  return new SignJWT({
    azp: claims.clientId ?? config.allowedClients[0],
    ...(claims.email ? { email: claims.email, email_verified: claims.emailVerified ?? true } : {}),
    ...(claims.name ? { name: claims.name } : {}),
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.subject)
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? '12h')
    .sign(devKey(dataDir));
}

export function createTokenVerifier(config: OAuthConfig, dataDir: string, logger: Logger): TokenVerifier {
  switch (config.mode) {
    case 'jwks':
      return jwksVerifier(config, logger);
    case 'introspection':
      return introspectionVerifier(config, logger);
    case 'dev':
      return devVerifier(config, dataDir);
  }
}
