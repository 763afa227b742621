import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { ApiKeySecret, TrustedPublishingConfig } from '../../config.ts';
import { ApiError, notFound, validationFailed } from '../../http/problem.ts';
import { ApiKey } from '../api-keys/api-key.entity.ts';
import { generateKey, hashKey } from '../api-keys/key-format.ts';
import { authorizeApp, lockAppFor, type Caller } from '../teams/access.ts';
import type { App } from '../apps/app.entity.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import { Developer } from '../developers/developer.entity.ts';
import { IssuerKeysError, type IssuerKeys } from './issuer-keys.ts';
import { TrustedPublisher } from './trusted-publisher.entity.ts';
import type { CreateTrustedPublisherInput, ExchangedKey, TrustedPublisherView } from './trusted-publishing.model.ts';

/** How long an exchanged key works: long enough for one CI job, short enough that a leak soon expires. */
export const EXCHANGED_KEY_MINUTES = 15;
const EXCHANGED_KEY_SCOPES = ['APP_READ', 'APP_UPDATE'] as const;
/** Tokens whose lifetime is longer than a CI job's are not what the providers issue: refused. */
const MAX_TOKEN_LIFETIME_SECONDS = 60 * 60;

const developerActor = (developerId: string): Actor => ({ label: `developer:${developerId}` });

export function toTrustedPublisherView(publisher: TrustedPublisher): TrustedPublisherView {
  return {
    id: publisher.id,
    issuer: publisher.issuer,
    repository: publisher.repository,
    workflow: publisher.workflow,
    environment: publisher.environment ?? null,
    createdAt: publisher.createdAt.toISOString(),
  };
}

export async function listTrustedPublishers(em: EntityManager, caller: Caller, appId: string): Promise<TrustedPublisherView[]> {
  const app = await authorizeApp(em, caller, appId, 'edit');
  const publishers = await em.find(TrustedPublisher, { app }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return publishers.map(toTrustedPublisherView);
}

export async function addTrustedPublisher(
  em: EntityManager,
  config: TrustedPublishingConfig,
  caller: Caller,
  appId: string,
  input: CreateTrustedPublisherInput,
): Promise<TrustedPublisherView> {
  if (!config.issuers.includes(input.issuer)) {
    throw validationFailed(`issuer must be one of: ${config.issuers.join(', ')}`, [
      { path: '/issuer', message: `must be one of: ${config.issuers.join(', ')}` },
    ]);
  }
  try {
    return await em.transactional(async (tx) => {
      const app = await lockAppFor(tx, caller, appId, 'edit');
      const publisher = tx.create(TrustedPublisher, {
        app,
        createdBy: tx.getReference(Developer, caller.developerId),
        issuer: input.issuer,
        repository: input.repository,
        workflow: input.workflow,
        environment: input.environment ?? null,
      });
      await tx.flush();
      recordAudit(tx, developerActor(caller.developerId), {
        action: 'trusted_publisher.added',
        subjectType: 'app',
        subjectId: app.id,
        after: toTrustedPublisherView(publisher),
      });
      return toTrustedPublisherView(publisher);
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw new ApiError(
        409,
        'TRUSTED_PUBLISHER_EXISTS',
        'This workflow (repository, file and environment) already publishes an app: one workflow publishes one app',
      );
    }
    throw error;
  }
}

export async function removeTrustedPublisher(em: EntityManager, caller: Caller, appId: string, publisherId: string): Promise<TrustedPublisherView> {
  return em.transactional(async (tx) => {
    const app = await lockAppFor(tx, caller, appId, 'edit');
    const publisher = await tx.findOne(TrustedPublisher, { id: publisherId, app });
    if (!publisher) throw notFound('Trusted publisher');
    const view = toTrustedPublisherView(publisher);
    tx.remove(publisher);
    recordAudit(tx, developerActor(caller.developerId), { action: 'trusted_publisher.removed', subjectType: 'app', subjectId: app.id, before: view });
    return view;
  });
}

/** Every refusal of an exchange is a 401 whose detail names the check that failed. */
const refused = (check: string) => new ApiError(401, 'UNAUTHENTICATED', `Token refused: ${check}`);

/** The claims GitHub Actions (and providers shaped like it) put in a job's token. */
interface CiClaims extends JWTPayload {
  repository?: unknown;
  job_workflow_ref?: unknown;
  environment?: unknown;
}

/** `owner/repo/.github/workflows/publish.yml@refs/heads/main` → `publish.yml`. */
function workflowFileOf(claims: CiClaims): string | null {
  if (typeof claims.job_workflow_ref !== 'string') return null;
  const match = /\/\.github\/workflows\/([^/@]+)@/.exec(claims.job_workflow_ref);
  return match?.[1] ?? null;
}

async function verifiedClaims(token: string, config: TrustedPublishingConfig, issuerKeys: IssuerKeys, heldKeysOnly: boolean): Promise<CiClaims> {
  let unverified: JWTPayload;
  let kid: string | undefined;
  try {
    unverified = decodeJwt(token);
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw refused('it is not a JWT');
  }
  const issuer = unverified.iss;
  if (typeof issuer !== 'string' || !config.issuers.includes(issuer)) {
    throw refused(`issuer ${JSON.stringify(issuer ?? null)} is not a trusted publishing issuer`);
  }
  let keys: Awaited<ReturnType<IssuerKeys>>;
  try {
    keys = await issuerKeys(issuer, kid, { heldOnly: heldKeysOnly });
  } catch (error) {
    if (error instanceof IssuerKeysError) throw refused(`the issuer's signing keys could not be had: ${error.message}`);
    throw error;
  }
  try {
    const { payload } = await jwtVerify<CiClaims>(token, keys, {
      issuer,
      audience: config.audience,
      algorithms: ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'PS256'],
      requiredClaims: ['exp', 'iat', 'jti'],
      maxTokenAge: MAX_TOKEN_LIFETIME_SECONDS,
    });
    return payload;
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw refused('the token has expired');
    if (error instanceof joseErrors.JWTClaimValidationFailed) {
      if (error.claim === 'aud') throw refused(`its audience is not "${config.audience}"`);
      if (error.claim === 'iat') throw refused('it was issued too long ago or in the future');
      throw refused(`its "${error.claim}" claim is missing or invalid`);
    }
    if (error instanceof joseErrors.JWKSNoMatchingKey) throw refused('it is signed with a key the issuer does not publish');
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) throw refused('its signature does not verify');
    if (error instanceof joseErrors.JOSEError) throw refused(`it could not be verified (${error.code})`);
    throw error;
  }
}

/** The one publisher the token's claims match, or a refusal naming the first claim that matched nothing. */
function matchPublisher(claims: CiClaims, candidates: TrustedPublisher[]): TrustedPublisher {
  const repository = typeof claims.repository === 'string' ? claims.repository : null;
  if (!repository) throw refused('it has no repository claim');
  const inRepository = candidates.filter((publisher) => publisher.repository.toLowerCase() === repository.toLowerCase());
  if (inRepository.length === 0) throw refused(`no trusted publisher is registered for repository ${repository}`);
  const workflow = workflowFileOf(claims);
  if (!workflow) throw refused('it has no job_workflow_ref naming a workflow file');
  const ofWorkflow = inRepository.filter((publisher) => publisher.workflow === workflow);
  if (ofWorkflow.length === 0) throw refused(`no trusted publisher of ${repository} is registered for workflow ${workflow}`);
  const environment = typeof claims.environment === 'string' ? claims.environment : null;
  // A publisher naming the token's environment wins over one that accepts any environment.
  const match =
    ofWorkflow.find((publisher) => publisher.environment !== null && publisher.environment === environment) ??
    ofWorkflow.find((publisher) => publisher.environment === null);
  if (!match) {
    const wanted = ofWorkflow.map((publisher) => publisher.environment).join(', ');
    throw refused(`workflow ${workflow} of ${repository} may publish only from environment ${wanted}, not ${environment ?? 'none'}`);
  }
  return match;
}

/**
 * Trades a CI job's OIDC token for a key to the one app a trusted publisher names: the token is
 * verified against its issuer's published keys, matched to a registered workflow, and spent (its
 * `jti` is good once); the key belongs to the developer who registered the workflow, reaches only
 * that app with APP_READ and APP_UPDATE, and expires in 15 minutes. `heldKeysOnly`: a token whose
 * issuer's keys this process does not hold is refused rather than fetched for (a client past its limit).
 */
export async function exchangeToken(
  em: EntityManager,
  deps: { config: TrustedPublishingConfig; issuerKeys: IssuerKeys; signingSecret: ApiKeySecret },
  token: string,
  options: { heldKeysOnly?: boolean } = {},
): Promise<ExchangedKey> {
  const claims = await verifiedClaims(token, deps.config, deps.issuerKeys, options.heldKeysOnly ?? false);
  return em.transactional(async (tx) => {
    const candidates = await tx.find(TrustedPublisher, { issuer: claims.iss! }, { populate: ['app', 'createdBy'] });
    const publisher = matchPublisher(claims, candidates);
    const app = publisher.app as App;
    const developer = publisher.createdBy as Developer;
    // The key will be that developer's: they must still be allowed to edit the app (its owner, or a maintainer of its team).
    const stillAllowed =
      developer.status !== 'SUSPENDED' &&
      (await authorizeApp(tx, { developerId: developer.id, keyTeamId: null }, app.id, 'edit').then(
        () => true,
        (error: unknown) => {
          if (error instanceof ApiError) return false;
          throw error;
        },
      ));
    if (!stillAllowed) throw refused('the developer who registered this trusted publisher can no longer publish the app');
    // Spent inside the transaction: of two concurrent exchanges of one token, exactly one inserts.
    const spent = await executeNamed<{ jti: string }>(
      tx,
      `insert into trusted_publishing_tokens (issuer, jti, expires_at) values (:issuer, :jti, to_timestamp(:expiresAt))
       on conflict do nothing returning jti`,
      { issuer: claims.iss, jti: claims.jti, expiresAt: claims.exp },
    );
    if (spent.length === 0) throw refused(`it was already used (jti ${claims.jti})`);
    const fullKey = generateKey();
    const key = tx.create(ApiKey, {
      developer,
      appId: app.id,
      parentKeyId: null,
      name: `Trusted publishing: ${publisher.repository} ${publisher.workflow}${publisher.environment ? ` (${publisher.environment})` : ''}`,
      scopes: [...EXCHANGED_KEY_SCOPES],
      keyHash: hashKey(fullKey, deps.signingSecret),
      secretId: deps.signingSecret.id,
      last4: fullKey.slice(-4),
      expiresAt: new Date(Date.now() + EXCHANGED_KEY_MINUTES * 60_000),
    });
    await tx.flush();
    recordAudit(
      tx,
      { label: `trusted-publisher:${publisher.id}` },
      {
        action: 'trusted_publishing.exchanged',
        subjectType: 'app',
        subjectId: app.id,
        after: {
          keyId: key.id,
          repository: claims.repository,
          workflow: claims.job_workflow_ref,
          environment: claims.environment ?? null,
          jti: claims.jti,
        },
      },
    );
    return { key: fullKey, expiresAt: key.expiresAt.toISOString(), appId: app.id };
  });
}
