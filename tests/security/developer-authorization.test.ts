import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { approvedApp, completeApp, createApp } from '../apps/fixtures.ts';
import { SCOPES, type Scope } from '../../src/modules/api-keys/api-key.entity.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { databaseFingerprint, openFingerprintReader } from './fingerprint.ts';
import { startIssuer, type TestIssuer } from '../publishing/oidc-issuer.ts';

/**
 * Every developer route (`/api/dev/*`, read from the app's route table) against every kind of
 * credential, with the exact status and `code` each must get. What a route takes is declared once,
 * in ROUTES below (the credential rules of the wire contract); a route missing from it fails the suite, so a new route
 * cannot escape the matrix. Each route gets a fresh resource of its own owner; every refused
 * request targets that real resource with a valid body, the whole database is compared before and
 * after, and then the owner's own credential makes the same request succeed — so the refusals
 * refused something that would have happened.
 */

type Needs =
  /** Only the platform OAuth token (an API key is refused outright). */
  | { takes: 'platform-token' }
  /** Only an API key, holding `scope` when one is named (the OAuth token is 403 API_KEY_REQUIRED). */
  | { takes: 'api-key'; scope?: Scope }
  /** The OAuth token, or an API key holding `scope` when one is named. */
  | { takes: 'token-or-key'; scope?: Scope }
  /** No credential: whatever is sent in the header is ignored (the trusted-publishing exchange reads its body). */
  | { takes: 'nothing' };

interface Target {
  params?: Record<string, string>;
  body?: unknown;
  /** The credential that may make this request (default: the owner's key with every scope). */
  as?: string;
}

interface RouteSpec {
  needs: Needs;
  /** A request that changes nothing (unknown ids, an invalid body), and what the route answers once the caller is let in. */
  probe: { body?: unknown; status: number; code?: string };
  /** A fresh resource of the owner's and a valid request on it. */
  target(): Promise<Target>;
  /** What the owner gets for the target request. */
  ok: number;
}

let t: TestApp;
let owner: TestDeveloper;
let ownerKey: string;
let other: TestDeveloper;
let otherKey: string;
let host: TestDeveloper;
let issuer: TestIssuer;
const credentials = new Map<string, string>();
/** Set while building a target on a team app: the team the owner's new apps are created for. */
let appTeamId: string | null = null;
/** What the well-known path of the verification server answers. */
let servedToken = '';
let domainServer: ReturnType<typeof Bun.serve>;

const UNKNOWN_ID = '0b0c4f4e-6d0e-4c63-9a55-6f7f3a2c9d11';

// Fresh resources, each owned by `owner` (personally, or by `appTeamId` when set).
const appBody = () => completeApp(appTeamId ? { teamId: appTeamId } : {});
const draft = async () => (await createApp(t, ownerKey, appBody())).id as string;
const approved = async () => (await approvedApp(t, ownerKey, appBody())) as { id: string; slug: string };
async function review(options: { replied?: boolean } = {}) {
  const app = await approved();
  const user = await t.token(`reviewer-${crypto.randomUUID()}`);
  await t.call('POST', `/api/apps/${app.slug}/install`, { token: user, body: {} });
  const created = await t.call('POST', `/api/apps/${app.slug}/reviews`, { token: user, body: { rating: 4, title: 'Fine' } });
  if (created.status !== 201) throw new Error(`review failed: ${created.status}`);
  if (options.replied)
    await t.call('PUT', `/api/dev/apps/${app.id}/reviews/${created.body.id}/reply`, { token: ownerKey, body: { body: 'Thank you!' } });
  return { id: app.id, reviewId: created.body.id as string };
}
/** A draft whose logo check stored a copy (written directly: no image server here); the copy's file name. */
async function storedCopy() {
  const id = await draft();
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const sha256 = new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
  await t.sql(`insert into assets (sha256, extension, content_type, byte_size, bytes) values (?, 'png', 'image/png', 32, ?)`, [
    sha256,
    Buffer.from(bytes),
  ]);
  await t.sql(
    `insert into asset_checks (app_id, field, url, ok, format, width, height, sha256, checked_at)
     select id, 'logoUrl', logo_url, true, 'png', 512, 512, ?, now() from apps where id = ?`,
    [sha256, id],
  );
  return { id, file: `${sha256}.png` };
}
async function hook() {
  const created = await t.call('POST', '/api/dev/webhooks', { token: ownerKey, body: { url: 'http://127.0.0.1:9/hook', events: ['app.approved'] } });
  if (created.status !== 201) throw new Error(`webhook failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}
async function delivery() {
  const id = await hook();
  const ping = await t.call('POST', `/api/dev/webhooks/${id}/test`, { token: ownerKey });
  return { id, deliveryId: ping.body.id as string };
}
/** A CI workflow trusted to publish a fresh draft of the owner's, and a job token of it. */
async function trustedPublisher() {
  const id = await draft();
  const repository = `acme/app-${crypto.randomUUID().slice(0, 8)}`;
  const created = await t.call('POST', `/api/dev/apps/${id}/trusted-publishers`, {
    token: ownerKey,
    body: { issuer: issuer.url, repository, workflow: 'publish.yml' },
  });
  if (created.status !== 201) throw new Error(`trusted publisher failed: ${created.status} ${JSON.stringify(created.body)}`);
  const token = await issuer.token({
    repository,
    job_workflow_ref: `${repository}/.github/workflows/publish.yml@refs/heads/main`,
    environment: undefined,
  });
  return { id, publisherId: created.body.id as string, token };
}
async function ownerKeyId() {
  const created = await t.call('POST', '/api/dev/api-keys', { token: owner.oauthToken, body: { name: 'to revoke', scopes: ['APP_READ'] } });
  return created.body.id as string;
}

/** A fresh team the owner owns. */
async function team(as: TestDeveloper = owner) {
  const created = await t.call('POST', '/api/dev/teams', { token: as.oauthToken, body: { name: `Team ${crypto.randomUUID().slice(0, 8)}` } });
  if (created.status !== 201) throw new Error(`team failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}
async function invitation(teamId: string, email: string, as: TestDeveloper = owner, role = 'analyst') {
  const created = await t.call('POST', `/api/dev/teams/${teamId}/invitations`, { token: as.oauthToken, body: { email, role } });
  if (created.status !== 201) throw new Error(`invitation failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}
/** A team of the owner's with a second member, for the member routes. */
async function teamWithMember() {
  const id = await team();
  const joiner = await registerDeveloper(t);
  const invited = await invitation(id, joiner.email);
  await t.call('POST', `/api/dev/invitations/${invited}/accept`, { token: joiner.oauthToken });
  return { id, developerId: joiner.id };
}
/** An invitation to the owner, from a team of someone else's. */
const invitationToOwner = async () => ({ params: { id: await invitation(await team(host), owner.email, host) } });
const TEAMS: Needs = { takes: 'token-or-key' };
const onTeam = (ok: number): RouteSpec => ({ needs: TEAMS, probe: unknownId, target: async () => ({ params: { id: await team() } }), ok });

const invalid = { unknownField: true };
const webhookBody = { url: 'http://127.0.0.1:9/other', events: ['app.rejected'] };
/** Probes: an id nobody has, a body the schema refuses. */
const unknownId = { status: 404, code: 'NOT_FOUND' };
const invalidBody = { body: invalid, status: 400, code: 'VALIDATION_FAILED' };
const WEBHOOKS: Needs = { takes: 'token-or-key', scope: 'APP_UPDATE' };
/** A webhook route on a fresh endpoint of the owner's. */
const onHook = (ok: number): RouteSpec => ({ needs: WEBHOOKS, probe: unknownId, target: async () => ({ params: { id: await hook() } }), ok });

/** What each developer route takes. Keep it in step with the route table: the first test below checks. */
const ROUTES: Record<string, RouteSpec> = {
  'POST /api/dev/register': {
    needs: { takes: 'platform-token' },
    probe: { body: {}, status: 400, code: 'VALIDATION_FAILED' },
    async target() {
      const subject = `new-${crypto.randomUUID()}`;
      return { body: { name: 'Newcomer', email: `${subject}@example.com`, platformUserId: subject }, as: await t.token(subject) };
    },
    ok: 201,
  },
  'GET /api/dev/me': { needs: { takes: 'api-key' }, probe: { status: 200 }, target: async () => ({}), ok: 200 },
  'PUT /api/dev/me': {
    needs: { takes: 'token-or-key' },
    probe: invalidBody,
    target: async () => ({ body: { companyName: `Changed ${crypto.randomUUID()}` } }),
    ok: 200,
  },
  'POST /api/dev/api-keys': {
    needs: { takes: 'token-or-key' },
    probe: { body: {}, status: 400, code: 'VALIDATION_FAILED' },
    target: async () => ({ body: { name: 'minted', scopes: ['APP_READ'] } }),
    ok: 201,
  },
  'GET /api/dev/api-keys': { needs: { takes: 'token-or-key' }, probe: { status: 200 }, target: async () => ({}), ok: 200 },
  'DELETE /api/dev/api-keys/:id': {
    needs: { takes: 'token-or-key' },
    probe: unknownId,
    target: async () => ({ params: { id: await ownerKeyId() }, as: owner.oauthToken }),
    ok: 200,
  },
  'POST /api/dev/apps': {
    needs: { takes: 'api-key', scope: 'APP_CREATE' },
    probe: { body: {}, status: 400, code: 'VALIDATION_FAILED' },
    target: async () => ({ body: completeApp() }),
    ok: 201,
  },
  'GET /api/dev/apps': { needs: { takes: 'api-key', scope: 'APP_READ' }, probe: { status: 200 }, target: async () => ({}), ok: 200 },
  'GET /api/dev/apps/:id': {
    needs: { takes: 'api-key', scope: 'APP_READ' },
    probe: unknownId,
    target: async () => ({ params: { id: await draft() } }),
    ok: 200,
  },
  'PUT /api/dev/apps/:id': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: invalidBody,
    target: async () => ({ params: { id: await draft() }, body: { description: 'Changed by whoever got in.' } }),
    ok: 200,
  },
  'DELETE /api/dev/apps/:id': {
    needs: { takes: 'api-key', scope: 'APP_DELETE' },
    probe: unknownId,
    target: async () => ({ params: { id: await draft() } }),
    ok: 200,
  },
  'POST /api/dev/apps/:id/submit': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: unknownId,
    target: async () => ({ params: { id: await draft() } }),
    ok: 200,
  },
  'POST /api/dev/apps/:id/preflight': {
    needs: { takes: 'api-key', scope: 'APP_READ' },
    probe: unknownId,
    target: async () => ({ params: { id: await draft() } }),
    ok: 200,
  },
  'POST /api/dev/apps/:id/withdraw': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: unknownId,
    async target() {
      const id = await draft();
      await t.call('POST', `/api/dev/apps/${id}/submit`, { token: ownerKey });
      return { params: { id } };
    },
    ok: 200,
  },
  'DELETE /api/dev/apps/:id/revision': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: unknownId,
    async target() {
      const { id } = await approved();
      await t.call('POST', `/api/dev/apps/${id}/revisions`, { token: ownerKey, body: { description: 'To be withdrawn.' } });
      return { params: { id } };
    },
    ok: 200,
  },
  'POST /api/dev/apps/:id/revisions': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: invalidBody,
    target: async () => ({ params: { id: (await approved()).id }, body: { description: 'A revised description.' } }),
    ok: 201,
  },
  'GET /api/dev/apps/:id/revisions': {
    needs: { takes: 'api-key', scope: 'APP_READ' },
    probe: unknownId,
    target: async () => ({ params: { id: (await approved()).id } }),
    ok: 200,
  },
  'GET /api/dev/apps/:id/trusted-publishers': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: unknownId,
    target: async () => ({ params: { id: await draft() } }),
    ok: 200,
  },
  'POST /api/dev/apps/:id/trusted-publishers': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: invalidBody,
    target: async () => ({
      params: { id: await draft() },
      body: { issuer: issuer.url, repository: `acme/${crypto.randomUUID()}`, workflow: 'ci.yml' },
    }),
    ok: 201,
  },
  'DELETE /api/dev/apps/:id/trusted-publishers/:publisherId': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: unknownId,
    target: async () => ({ params: await trustedPublisher() }),
    ok: 200,
  },
  'POST /api/dev/trusted-publishing/exchange': {
    needs: { takes: 'nothing' },
    probe: { body: { token: 'not-a-jwt' }, status: 401, code: 'UNAUTHENTICATED' },
    target: async () => ({ body: { token: (await trustedPublisher()).token } }),
    ok: 201,
  },
  'GET /api/dev/apps/:id/assets/:file': {
    needs: { takes: 'api-key', scope: 'APP_READ' },
    probe: unknownId,
    target: async () => ({ params: await storedCopy() }),
    ok: 200,
  },
  'GET /api/dev/apps/:id/analytics': {
    needs: { takes: 'api-key', scope: 'ANALYTICS_READ' },
    probe: unknownId,
    target: async () => ({ params: { id: (await approved()).id } }),
    ok: 200,
  },
  'GET /api/dev/apps/:id/analytics/daily': {
    needs: { takes: 'api-key', scope: 'ANALYTICS_READ' },
    probe: unknownId,
    target: async () => ({ params: { id: (await approved()).id } }),
    ok: 200,
  },
  'GET /api/dev/teams/:id/analytics': {
    needs: { takes: 'api-key', scope: 'ANALYTICS_READ' },
    probe: unknownId,
    target: async () => ({ params: { id: await team() } }),
    ok: 200,
  },
  'GET /api/dev/apps/:id/reviews': {
    needs: { takes: 'api-key', scope: 'APP_READ' },
    probe: unknownId,
    target: async () => ({ params: { id: (await review()).id } }),
    ok: 200,
  },
  'PUT /api/dev/apps/:id/reviews/:reviewId/reply': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: invalidBody,
    target: async () => ({ params: await review(), body: { body: 'Thanks for the review!' } }),
    ok: 201,
  },
  'DELETE /api/dev/apps/:id/reviews/:reviewId/reply': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: unknownId,
    target: async () => ({ params: await review({ replied: true }) }),
    ok: 200,
  },
  'POST /api/dev/webhooks': {
    needs: WEBHOOKS,
    probe: { body: {}, status: 400, code: 'VALIDATION_FAILED' },
    target: async () => ({ body: webhookBody }),
    ok: 201,
  },
  'GET /api/dev/webhooks': { needs: WEBHOOKS, probe: { status: 200 }, target: async () => ({}), ok: 200 },
  'GET /api/dev/webhooks/:id': onHook(200),
  'PUT /api/dev/webhooks/:id': {
    needs: WEBHOOKS,
    probe: invalidBody,
    target: async () => ({ params: { id: await hook() }, body: { enabled: false } }),
    ok: 200,
  },
  'DELETE /api/dev/webhooks/:id': onHook(200),
  'POST /api/dev/webhooks/:id/rotate-secret': onHook(200),
  'POST /api/dev/webhooks/:id/test': onHook(201),
  'GET /api/dev/webhooks/:id/deliveries': onHook(200),
  'POST /api/dev/webhooks/:id/deliveries/:deliveryId/redeliver': {
    needs: WEBHOOKS,
    probe: unknownId,
    target: async () => ({ params: await delivery() }),
    ok: 200,
  },
  'POST /api/dev/teams': {
    needs: TEAMS,
    probe: { body: {}, status: 400, code: 'VALIDATION_FAILED' },
    target: async () => ({ body: { name: 'A new team' } }),
    ok: 201,
  },
  'GET /api/dev/teams': { needs: TEAMS, probe: { status: 200 }, target: async () => ({}), ok: 200 },
  'GET /api/dev/teams/:id': onTeam(200),
  'PUT /api/dev/teams/:id': {
    needs: TEAMS,
    probe: invalidBody,
    target: async () => ({ params: { id: await team() }, body: { name: 'Renamed' } }),
    ok: 200,
  },
  'DELETE /api/dev/teams/:id': onTeam(200),
  'POST /api/dev/teams/:id/invitations': {
    needs: TEAMS,
    probe: invalidBody,
    target: async () => ({ params: { id: await team() }, body: { email: `invitee-${crypto.randomUUID()}@example.com`, role: 'analyst' } }),
    ok: 201,
  },
  'GET /api/dev/teams/:id/invitations': onTeam(200),
  'DELETE /api/dev/teams/:id/invitations/:invitationId': {
    needs: TEAMS,
    probe: unknownId,
    async target() {
      const id = await team();
      return { params: { id, invitationId: await invitation(id, `invitee-${crypto.randomUUID()}@example.com`) } };
    },
    ok: 200,
  },
  'GET /api/dev/invitations': { needs: TEAMS, probe: { status: 200 }, target: async () => ({}), ok: 200 },
  'POST /api/dev/invitations/:id/accept': { needs: TEAMS, probe: unknownId, target: invitationToOwner, ok: 200 },
  'POST /api/dev/invitations/:id/decline': { needs: TEAMS, probe: unknownId, target: invitationToOwner, ok: 200 },
  'GET /api/dev/teams/:id/members': onTeam(200),
  'PUT /api/dev/teams/:id/members/:developerId': {
    needs: TEAMS,
    probe: invalidBody,
    target: async () => ({ params: await teamWithMember(), body: { role: 'maintainer' } }),
    ok: 200,
  },
  'DELETE /api/dev/teams/:id/members/:developerId': {
    needs: TEAMS,
    probe: unknownId,
    target: async () => ({ params: await teamWithMember() }),
    ok: 200,
  },
  'POST /api/dev/teams/:id/domain': {
    needs: TEAMS,
    probe: invalidBody,
    target: async () => ({ params: { id: await team() }, body: { domain: 'publisher.example.com' } }),
    ok: 200,
  },
  'POST /api/dev/teams/:id/domain/verify': {
    needs: TEAMS,
    probe: unknownId,
    async target() {
      const id = await team();
      const claim = await t.call('POST', `/api/dev/teams/${id}/domain`, {
        token: owner.oauthToken,
        body: { domain: `127.0.0.1:${domainServer.port}` },
      });
      servedToken = claim.body.token;
      return { params: { id } };
    },
    ok: 200,
  },
  'GET /api/dev/teams/:id/audit': onTeam(200),
  'POST /api/dev/apps/:id/transfer': {
    needs: { takes: 'api-key', scope: 'APP_UPDATE' },
    probe: invalidBody,
    // A team app goes back to its owner personally; a personal one goes to a team.
    target: async () => ({ params: { id: await draft() }, body: { teamId: appTeamId ? null : await team() } }),
    ok: 200,
  },
};

/**
 * The credentials every route is tried with. `refused` ones are 401 wherever they are sent; the
 * rest depend on what the route takes (see `expectation`).
 */
type Credential =
  | { name: string; kind: 'refused'; headers: () => (string | undefined)[] }
  | { name: string; kind: 'owner-oauth' | 'owner-key' | 'other-oauth' | 'other-key'; token: () => string }
  | { name: string; kind: 'key-without'; scope: Scope }
  /** A key exchanged by trusted publishing for another app of the owner's. */
  | { name: string; kind: 'app-bound'; token: () => string };

const header = (name: string) => `Bearer ${credentials.get(name)!}`;
const CREDENTIALS: Credential[] = [
  { name: 'no token', kind: 'refused', headers: () => [undefined] },
  {
    name: 'malformed',
    kind: 'refused',
    headers: () => [
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      `Token ${ownerKey}`,
      `Bearer ${ownerKey} ${ownerKey}`,
      'Bearer mk_short',
      'Bearer not.a.jwt',
      `Bearer ${ownerKey}\u00e9`,
    ],
  },
  { name: 'wrong checksum', kind: 'refused', headers: () => [`Bearer ${ownerKey.slice(0, -1)}${ownerKey.endsWith('0') ? '1' : '0'}`] },
  { name: 'expired key', kind: 'refused', headers: () => [header('expired')] },
  { name: 'revoked key', kind: 'refused', headers: () => [header('revoked')] },
  { name: 'child of a revoked key', kind: 'refused', headers: () => [header('child')] },
  { name: 'key of a suspended developer', kind: 'refused', headers: () => [header('suspended')] },
  { name: "a third-party client's OAuth token", kind: 'refused', headers: () => [header('third-party')] },
  { name: "the owner's OAuth token", kind: 'owner-oauth', token: () => owner.oauthToken },
  { name: "the owner's key with every scope", kind: 'owner-key', token: () => ownerKey },
  ...SCOPES.map((scope): Credential => ({ name: `the owner's key without ${scope}`, kind: 'key-without', scope })),
  { name: "another developer's key", kind: 'other-key', token: () => otherKey },
  { name: "another developer's OAuth token", kind: 'other-oauth', token: () => other.oauthToken },
  { name: "a trusted-publishing key for another of the owner's apps", kind: 'app-bound', token: () => credentials.get('app-bound')! },
];

/** The routes a trusted-publishing key may use, on its own app only. */
const APP_BOUND_ROUTES = new Set([
  '/api/dev/apps/:id',
  '/api/dev/apps/:id/submit',
  '/api/dev/apps/:id/preflight',
  '/api/dev/apps/:id/revisions',
  '/api/dev/apps/:id/revision',
  '/api/dev/apps/:id/withdraw',
]);

/** `probe`: let in (the harmless request gets the route's own answer); `not-found`: let in, but the owner's resource is not theirs. */
type Expectation = { status: number; code: string } | 'probe' | 'not-found';

const UNAUTHENTICATED = { status: 401, code: 'UNAUTHENTICATED' };

function expectation(needs: Needs, credential: Credential, template: string): Expectation {
  const perResource = template.includes(':');
  if (needs.takes === 'nothing') return 'probe';
  if (credential.kind === 'refused') return UNAUTHENTICATED;
  if (credential.kind === 'app-bound' && needs.takes !== 'platform-token') {
    return APP_BOUND_ROUTES.has(template) ? 'not-found' : { status: 403, code: 'INSUFFICIENT_SCOPE' };
  }
  const oauth = credential.kind === 'owner-oauth' || credential.kind === 'other-oauth';
  if (needs.takes === 'platform-token') return oauth ? 'probe' : UNAUTHENTICATED;
  if (oauth && needs.takes === 'api-key') return { status: 403, code: 'API_KEY_REQUIRED' };
  if (credential.kind === 'key-without' && credential.scope === needs.scope) return { status: 403, code: 'INSUFFICIENT_SCOPE' };
  if (credential.kind.startsWith('other') && perResource) return 'not-found';
  return 'probe';
}

const pathOf = (template: string, params: Record<string, string> = {}) =>
  template.replace(/:([A-Za-z]+)/g, (_, name: string) => params[name] ?? UNKNOWN_ID);

async function send(method: string, path: string, authorization: string | undefined, body: unknown) {
  return t.call(method, path, { headers: authorization === undefined ? {} : { authorization }, body });
}

/** `work` on every item, at most `limit` at a time; the results in the items' order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The whole database's digest, read over a connection of its own (`openFingerprintReader`). */
let fingerprints: Awaited<ReturnType<typeof openFingerprintReader>>;
const fingerprint = () => databaseFingerprint(fingerprints);

beforeAll(async () => {
  issuer = await startIssuer();
  // No workers: nothing but the requests below changes the database between two fingerprints.
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true', TRUSTED_PUBLISHING_ISSUERS: issuer.url }, { role: 'api' });
  domainServer = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(servedToken) });
  fingerprints = await openFingerprintReader(t);
  // The developers and credentials below do not depend on one another, so each group is made at once.
  [host, owner, other] = await Promise.all([
    registerDeveloper(t, { name: 'Host' }),
    registerDeveloper(t, { name: 'Owner' }),
    registerDeveloper(t, { name: 'Other' }),
  ]);
  [ownerKey, otherKey] = await Promise.all([mintKey(t, owner), mintKey(t, other)]);

  const mint = async (token: string, name: string) => {
    const created = await t.call('POST', '/api/dev/api-keys', { token, body: { name, scopes: SCOPES } });
    if (created.status !== 201) throw new Error(`key creation failed: ${created.status}`);
    return created.body as { id: string; key: string };
  };
  await Promise.all([
    (async () => {
      const expired = await mint(owner.oauthToken, 'expired');
      credentials.set('expired', expired.key);
      await t.sql(`update api_keys set expires_at = now() - interval '1 second' where id = ?`, [expired.id]);
    })(),
    (async () => {
      const parent = await mint(owner.oauthToken, 'parent');
      credentials.set('revoked', parent.key);
      credentials.set('child', (await mint(parent.key, 'child')).key);
      expect((await t.call('DELETE', `/api/dev/api-keys/${parent.id}`, { token: owner.oauthToken })).status).toBe(200);
    })(),
    (async () => {
      const suspended = await registerDeveloper(t, { name: 'Suspended' });
      credentials.set('suspended', await mintKey(t, suspended));
      await transitionDeveloper({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs }, suspended.id, 'suspend', CLI_ACTOR);
    })(),
    (async () => credentials.set('third-party', await t.token(owner.platformUserId, { clientId: 'someone-elses-app' })))(),
    ...SCOPES.map(async (scope) =>
      credentials.set(
        `without ${scope}`,
        await mintKey(
          t,
          owner,
          SCOPES.filter((s) => s !== scope),
        ),
      ),
    ),
    (async () => {
      const exchanged = await t.call('POST', '/api/dev/trusted-publishing/exchange', { body: { token: (await trustedPublisher()).token } });
      credentials.set('app-bound', exchanged.body.key);
    })(),
  ]);
}, 30_000);
afterAll(async () => {
  await fingerprints.close();
  domainServer.stop(true);
  await t.close();
  issuer.stop();
}, 60_000);

test('every developer route is in the table, and the table names only routes that exist', () => {
  const served = t.app.routes.filter((route) => route.path.startsWith('/api/dev/')).map((route) => `${route.method} ${route.path}`);
  expect(served.filter((route) => !(route in ROUTES))).toEqual([]);
  expect(Object.keys(ROUTES).filter((route) => !served.includes(route))).toEqual([]);
});

test('the credentials are what they claim: the expired one has expired, the child was revoked with its parent', async () => {
  const expired = await t.sql('select 1 from api_keys where developer_id = ? and expires_at < now() and revoked_at is null', [owner.id]);
  expect(expired).toHaveLength(1);
  const revoked = await t.sql(
    'select parent_key_id is not null as child from api_keys where developer_id = ? and revoked_at is not null order by parent_key_id nulls first',
    [owner.id],
  );
  expect(revoked).toEqual([{ child: false }, { child: true }]);
});

describe('developer routes × credentials', () => {
  test.each(Object.keys(ROUTES))('%s', async (route) => {
    const spec = ROUTES[route]!;
    const [method, template] = route.split(' ') as [string, string];
    const target = await spec.target();
    const before = await fingerprint();

    const attempts = CREDENTIALS.flatMap((credential) => {
      const authorizations =
        credential.kind === 'refused'
          ? credential.headers()
          : [`Bearer ${credential.kind === 'key-without' ? credentials.get(`without ${credential.scope}`) : credential.token()}`];
      return authorizations.map((authorization, variant) => ({ credential, authorization, variant, variants: authorizations.length }));
    });
    // Each changes nothing, as the digests around the whole set show: their order cannot matter, so they go 8 at a time.
    const mismatches = await mapConcurrently(attempts, 8, async ({ credential, authorization, variant, variants }) => {
      const expected = expectation(spec.needs, credential, template);
      // Let in: a request that changes nothing. Refused, or someone else's: the real request on the owner's resource.
      const response =
        expected === 'probe'
          ? await send(method, pathOf(template), authorization, spec.probe.body)
          : await send(method, pathOf(template, target.params), authorization, target.body);
      const want = expected === 'probe' ? spec.probe : expected === 'not-found' ? { status: 404, code: 'NOT_FOUND' } : expected;
      const got = { status: response.status, code: response.status >= 400 ? response.body?.code : undefined };
      const found: string[] = [];
      if (got.status !== want.status || ('code' in want && want.code !== undefined && got.code !== want.code)) {
        found.push(
          `${credential.name}${variants > 1 ? ` #${variant + 1}` : ''}: expected ${want.status} ${want.code ?? ''}, got ${got.status} ${got.code ?? ''}`,
        );
      }
      if (got.status === 401 && response.headers.get('www-authenticate') !== 'Bearer') found.push(`${credential.name}: 401 without WWW-Authenticate`);
      return found;
    });
    expect(mismatches.flat()).toEqual([]);
    expect(await fingerprint()).toEqual(before);

    // The same request with the right credential does what every refused one was kept from doing.
    const allowed = await send(method, pathOf(template, target.params), `Bearer ${target.as ?? ownerKey}`, target.body);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(spec.ok);
  });
});

test("another developer's lists and profile never show the owner's resources", async () => {
  const hookId = await hook();
  const appId = await draft();
  for (const token of [otherKey, other.oauthToken]) {
    const keys = await t.call('GET', '/api/dev/api-keys', { token });
    expect(keys.body.data.length).toBeGreaterThan(0);
    expect(keys.body.data.every((key: { id: string }) => !JSON.stringify(key).includes(owner.id))).toBe(true);
    expect((await t.call('GET', '/api/dev/webhooks', { token })).body.data.map((h: { id: string }) => h.id)).not.toContain(hookId);
  }
  expect((await t.call('GET', '/api/dev/apps?limit=100', { token: otherKey })).body.data.map((a: { id: string }) => a.id)).not.toContain(appId);
  expect((await t.call('GET', '/api/dev/me', { token: otherKey })).body.id).toBe(other.id);
  const ownerKeys = (await t.sql<{ id: string }>('select id from api_keys where developer_id = ?', [owner.id])).map((row) => row.id);
  const listed = (await t.call('GET', '/api/dev/api-keys', { token: otherKey })).body.data.map((key: { id: string }) => key.id);
  expect(listed.filter((id: string) => ownerKeys.includes(id))).toEqual([]);
});

/**
 * The same app routes on a team app, against team credentials: what each role may do (D078's
 * role table), team keys, former members and a suspended team. Every refused request targets the
 * real app with a valid body and changes nothing; the team's owner then makes it succeed.
 */
const TEAM_APP_ROUTES: Record<string, 'analyst' | 'maintainer' | 'owner'> = {
  'GET /api/dev/apps/:id': 'analyst',
  'PUT /api/dev/apps/:id': 'maintainer',
  'DELETE /api/dev/apps/:id': 'maintainer',
  'POST /api/dev/apps/:id/submit': 'maintainer',
  'POST /api/dev/apps/:id/preflight': 'analyst',
  'POST /api/dev/apps/:id/revisions': 'maintainer',
  'GET /api/dev/apps/:id/analytics': 'analyst',
  'GET /api/dev/apps/:id/reviews': 'analyst',
  'PUT /api/dev/apps/:id/reviews/:reviewId/reply': 'maintainer',
  'DELETE /api/dev/apps/:id/reviews/:reviewId/reply': 'maintainer',
  'POST /api/dev/apps/:id/transfer': 'owner',
  'POST /api/dev/apps/:id/withdraw': 'maintainer',
  'DELETE /api/dev/apps/:id/revision': 'maintainer',
  'GET /api/dev/apps/:id/revisions': 'analyst',
  'GET /api/dev/apps/:id/analytics/daily': 'analyst',
  'GET /api/dev/apps/:id/assets/:file': 'analyst',
  'GET /api/dev/apps/:id/trusted-publishers': 'maintainer',
  'POST /api/dev/apps/:id/trusted-publishers': 'maintainer',
  'DELETE /api/dev/apps/:id/trusted-publishers/:publisherId': 'maintainer',
};

describe('team app routes × team credentials', () => {
  let teamId: string;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    teamId = await team();
    const joined = async (role: string) => {
      const developer = await registerDeveloper(t);
      const invited = await invitation(teamId, developer.email, owner, role);
      await t.call('POST', `/api/dev/invitations/${invited}/accept`, { token: developer.oauthToken });
      return developer;
    };
    // Members and keys that do not depend on one another are made at once; the former member leaves once their keys exist.
    const [analyst, maintainer, former] = await Promise.all([joined('analyst'), joined('maintainer'), joined('maintainer')]);
    [keys.analyst, keys.maintainer, keys.formerTeamKey, keys.formerPersonalKey, keys.otherTeamKey, keys.ownTeamKey] = await Promise.all([
      mintKey(t, analyst),
      mintKey(t, maintainer),
      mintKey(t, former, [...SCOPES], { teamId }),
      mintKey(t, former),
      team().then((otherTeamId) => mintKey(t, owner, [...SCOPES], { teamId: otherTeamId })),
      mintKey(t, owner, [...SCOPES], { teamId }),
    ]);
    await t.call('DELETE', `/api/dev/teams/${teamId}/members/${former.id}`, { token: owner.oauthToken });
  }, 60_000);

  test('every per-app route has a team role', () => {
    const perApp = t.app.routes.map((route) => `${route.method} ${route.path}`).filter((route) => route.includes(' /api/dev/apps/:id'));
    expect(perApp.filter((route) => !(route in TEAM_APP_ROUTES))).toEqual([]);
  });

  test.each(Object.keys(TEAM_APP_ROUTES))('%s', async (route) => {
    const spec = ROUTES[route]!;
    const needed = TEAM_APP_ROUTES[route]!;
    const [method, template] = route.split(' ') as [string, string];
    appTeamId = teamId;
    const target = await spec.target().finally(() => {
      appTeamId = null;
    });
    const path = pathOf(template, target.params);
    const refusals: [string, string, { status: number; code: string }][] = [
      ['a former member’s team key', keys.formerTeamKey!, UNAUTHENTICATED],
      ['a former member’s personal key', keys.formerPersonalKey!, { status: 404, code: 'NOT_FOUND' }],
      ['the owner’s key for another team', keys.otherTeamKey!, { status: 404, code: 'NOT_FOUND' }],
      ["another developer's key", otherKey, { status: 404, code: 'NOT_FOUND' }],
    ];
    const tooWeak = { status: 403, code: 'TEAM_ROLE_REQUIRED' };
    if (needed !== 'analyst') refusals.push(['an analyst', keys.analyst!, tooWeak]);
    if (needed === 'owner') refusals.push(['a maintainer', keys.maintainer!, tooWeak]);
    const mismatches: string[] = [];
    const check = async (name: string, token: string, want: { status: number; code?: string }) => {
      const response = await send(method, path, `Bearer ${token}`, target.body);
      if (response.status !== want.status || (want.code && response.body?.code !== want.code)) {
        mismatches.push(`${name}: expected ${want.status} ${want.code ?? ''}, got ${response.status} ${response.body?.code ?? ''}`);
      }
    };
    const before = await fingerprint();
    // As above, the refusals' order cannot matter; the suspension is a phase of its own.
    await Promise.all(refusals.map(([name, token, want]) => check(name, token, want)));
    await t.sql('update teams set suspended_at = now() where id = ?', [teamId]);
    await Promise.all([
      check('the owner, team suspended', ownerKey, { status: 403, code: 'TEAM_SUSPENDED' }),
      check('a team key, team suspended', keys.ownTeamKey!, { status: 403, code: 'TEAM_SUSPENDED' }),
    ]);
    await t.sql('update teams set suspended_at = null where id = ?', [teamId]);
    // Reads change nothing: the weakest role gets the route's own answer.
    if (needed === 'analyst') await check('an analyst', keys.analyst!, { status: spec.ok });
    expect(mismatches).toEqual([]);
    expect(await fingerprint()).toEqual(before);

    // The owner's team key does it; only the transfer out of the team needs a key that is not bound to it.
    const allowed = await send(method, path, `Bearer ${needed === 'owner' ? ownerKey : keys.ownTeamKey}`, target.body);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(spec.ok);
  });
});
