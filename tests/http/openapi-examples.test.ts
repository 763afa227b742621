import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { approvedApp } from '../apps/fixtures.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { startIssuer, type TestIssuer } from '../publishing/oidc-issuer.ts';

/**
 * "Try it out" works: every request body the document shows as an example is accepted as it is
 * (2xx) by the operation it belongs to, in the state a developer would call it in. An operation
 * with a body and no case here fails the test, so a new route brings its example and its case.
 */
let t: TestApp;
let document: any;
let issuer: TestIssuer;
beforeAll(async () => {
  // The webhook example is a receiver on this machine, as in development; a CI identity provider
  // on this machine signs the token the exchange example stands for.
  issuer = await startIssuer();
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true', TRUSTED_PUBLISHING_ISSUERS: `https://token.actions.githubusercontent.com,${issuer.url}` });
  document = (await t.call('GET', '/swagger/json')).body;
}, 30_000);
afterAll(async () => {
  issuer.stop();
  await t.close();
}, 30_000);

interface Target {
  path: string;
  token?: string;
  /** The example with its one value that cannot be written down in advance (a freshly signed token). */
  body?: object;
}

test('each request body example is accepted as it stands', async () => {
  const examples = new Map<string, unknown>();
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      if (operation.requestBody) examples.set(`${method.toUpperCase()} ${path}`, operation.requestBody.content['application/json'].example);
    }
  }

  // Ada, as the register example names her.
  const register = examples.get('POST /api/dev/register') as { platformUserId: string; email: string };
  const adaToken = await t.token(register.platformUserId, { email: register.email });
  let ada: TestDeveloper | undefined;
  let key = '';
  let draftId = '';
  let approved: { id: string; slug: string } | undefined;
  const reviewer = await t.token('u-77', { email: 'grace@example.com' });
  let reviewId = '';
  let webhookId = '';
  let teamId = '';
  let grace: TestDeveloper | undefined;

  // In the order a developer meets them; each case returns where to send its example.
  const cases: [string, () => Promise<Target>][] = [
    ['POST /api/dev/register', async () => ({ path: '/api/dev/register', token: adaToken })],
    ['PUT /api/dev/me', async () => ({ path: '/api/dev/me', token: adaToken })],
    ['POST /api/dev/api-keys', async () => ({ path: '/api/dev/api-keys', token: adaToken })],
    ['POST /api/dev/apps', async () => ({ path: '/api/dev/apps', token: key })],
    ['PUT /api/dev/apps/{id}', async () => ({ path: `/api/dev/apps/${draftId}`, token: key })],
    ['POST /api/dev/apps/{id}/revisions', async () => ({ path: `/api/dev/apps/${approved!.id}/revisions`, token: key })],
    ['POST /api/apps/{slug}/install', async () => ({ path: `/api/apps/${approved!.slug}/install`, token: reviewer })],
    ['POST /api/apps/{slug}/reviews', async () => ({ path: `/api/apps/${approved!.slug}/reviews`, token: reviewer })],
    [
      'POST /api/apps/{slug}/uninstall',
      async () => {
        // The example names its installer by `installationId`: that installation installed the app first, without a bearer.
        const installed = await t.call('POST', `/api/apps/${approved!.slug}/install`, { body: examples.get('POST /api/apps/{slug}/install') });
        expect(installed.status, JSON.stringify(installed.body)).toBe(201);
        return { path: `/api/apps/${approved!.slug}/uninstall` };
      },
    ],
    [
      'PUT /api/dev/apps/{id}/reviews/{reviewId}/reply',
      async () => ({ path: `/api/dev/apps/${approved!.id}/reviews/${reviewId}/reply`, token: key }),
    ],
    ['POST /api/dev/webhooks', async () => ({ path: '/api/dev/webhooks', token: key })],
    ['PUT /api/dev/webhooks/{id}', async () => ({ path: `/api/dev/webhooks/${webhookId}`, token: key })],
    ['POST /api/dev/apps/{id}/trusted-publishers', async () => ({ path: `/api/dev/apps/${approved!.id}/trusted-publishers`, token: key })],
    [
      'POST /api/dev/trusted-publishing/exchange',
      async () => {
        // The example is the shape of a job's token; a real one comes from a trusted issuer, for a workflow registered here.
        const ci = { issuer: issuer.url, repository: 'acme/focus-timer-ci', workflow: 'publish.yml', environment: 'production' };
        const registered = await t.call('POST', `/api/dev/apps/${approved!.id}/trusted-publishers`, { token: key, body: ci });
        expect(registered.status).toBe(201);
        return { path: '/api/dev/trusted-publishing/exchange', body: { token: await issuer.token({ repository: ci.repository }) } };
      },
    ],
    ['POST /api/dev/teams', async () => ({ path: '/api/dev/teams', token: key })],
    ['PUT /api/dev/teams/{id}', async () => ({ path: `/api/dev/teams/${teamId}`, token: key })],
    [
      'POST /api/dev/teams/{id}/invitations',
      async () => {
        // The invitee the example names: Grace, a verified developer with that address.
        const invitee = examples.get('POST /api/dev/teams/{id}/invitations') as { email: string };
        const registered = await t.call('POST', '/api/dev/register', {
          token: reviewer,
          body: { name: 'Grace Hopper', email: invitee.email, platformUserId: 'u-77' },
        });
        expect(registered.status, JSON.stringify(registered.body)).toBe(201);
        grace = { id: registered.body.id, platformUserId: 'u-77', email: invitee.email, oauthToken: reviewer };
        await transitionDeveloper({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs }, grace.id, 'verify', CLI_ACTOR);
        return { path: `/api/dev/teams/${teamId}/invitations`, token: key };
      },
    ],
    ['PUT /api/dev/teams/{id}/members/{developerId}', async () => ({ path: `/api/dev/teams/${teamId}/members/${grace!.id}`, token: key })],
    ['POST /api/dev/teams/{id}/domain', async () => ({ path: `/api/dev/teams/${teamId}/domain`, token: key })],
    [
      'POST /api/dev/apps/{id}/transfer',
      async () => {
        // The example (`teamId: null`) brings a team app back to its owner: the draft goes to Ada's team first.
        const moved = await t.call('POST', `/api/dev/apps/${draftId}/transfer`, { token: key, body: { teamId } });
        expect(moved.status, JSON.stringify(moved.body)).toBe(200);
        return { path: `/api/dev/apps/${draftId}/transfer`, token: key };
      },
    ],
  ];
  expect([...examples.keys()].sort(), 'every operation with a body has a case here').toEqual(cases.map(([operation]) => operation).sort());

  for (const [operation, target] of cases) {
    const { path, token, body } = await target();
    const method = operation.split(' ')[0]!;
    const example = examples.get(operation);
    expect(example, `${operation} has an example`).toBeDefined();
    if (body) expect(Object.keys(body).sort()).toEqual(Object.keys(example as object).sort());
    const response = await t.call(method, path, { token, body: body ?? example });
    expect(response.status, `${operation}: ${JSON.stringify(response.body)}`).toBeGreaterThanOrEqual(200);
    expect(response.status, `${operation}: ${JSON.stringify(response.body)}`).toBeLessThan(300);

    // What the next cases need.
    if (operation === 'POST /api/dev/register') {
      ada = { id: response.body.id, platformUserId: register.platformUserId, email: register.email, oauthToken: adaToken };
      await transitionDeveloper({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs }, ada.id, 'verify', CLI_ACTOR);
    }
    if (operation === 'POST /api/dev/api-keys') key = await mintKey(t, ada!);
    if (operation === 'POST /api/dev/apps') {
      draftId = response.body.id;
      approved = await approvedApp(t, key);
    }
    if (operation === 'POST /api/apps/{slug}/reviews') reviewId = response.body.id;
    if (operation === 'POST /api/dev/webhooks') webhookId = response.body.id;
    if (operation === 'POST /api/dev/teams') teamId = response.body.id;
    if (operation === 'POST /api/dev/teams/{id}/invitations') {
      const accepted = await t.call('POST', `/api/dev/invitations/${response.body.id}/accept`, { token: grace!.oauthToken });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    }
  }
}, 60_000);
