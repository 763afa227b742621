import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { approvedApp, completeApp, createApp, minimalApp } from '../apps/fixtures.ts';
import { createTeam, teamKey, teamOfThree, type Member } from './team-fixtures.ts';

let t: TestApp;
let owner: Member;
let analyst: Member;
let team: { id: string; name: string };
/** What the publisher's web server answers at the well-known path. */
let served = '';
let server: ReturnType<typeof Bun.serve>;

// The machine is shared: setting up the service and its members may take a while.
setDefaultTimeout(60_000);
beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true' });
  ({ team, owner, analyst } = await teamOfThree(t));
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) =>
      new URL(request.url).pathname === '/.well-known/marketplace-publisher.txt' ? new Response(`${served}\n`) : new Response('no', { status: 404 }),
  });
}, 60_000);
afterAll(async () => {
  server.stop(true);
  await t.close();
}, 60_000);

test('a team proves its domain by serving the token; a wrong token is 400 DOMAIN_NOT_VERIFIED saying what was found', async () => {
  const domain = `127.0.0.1:${server.port}`;
  const byAnalyst = await t.call('POST', `/api/dev/teams/${team.id}/domain`, { token: analyst.key, body: { domain } });
  expect(byAnalyst.body.code).toBe('TEAM_ROLE_REQUIRED');
  const claim = await t.call('POST', `/api/dev/teams/${team.id}/domain`, { token: owner.key, body: { domain } });
  expect(claim.status).toBe(200);
  expect(claim.body).toMatchObject({ domain, url: `http://${domain}/.well-known/marketplace-publisher.txt` });

  served = 'someone-else';
  const wrong = await t.call('POST', `/api/dev/teams/${team.id}/domain/verify`, { token: owner.key });
  expect(wrong.status).toBe(400);
  expect(wrong.body.code).toBe('DOMAIN_NOT_VERIFIED');
  expect(wrong.body.detail).toContain('someone-else');
  expect((await t.sql('select verified_domain from teams where id = ?', [team.id]))[0].verified_domain).toBeNull();

  served = claim.body.token;
  const verified = await t.call('POST', `/api/dev/teams/${team.id}/domain/verify`, { token: owner.key });
  expect(verified.status).toBe(200);
  expect(verified.body.verifiedDomain).toBe(domain);

  const app = (await approvedApp(t, owner.key, completeApp({ teamId: team.id }))) as { slug: string };
  expect((await t.call('GET', `/api/apps/${app.slug}`)).body.publisher.verifiedDomain).toBe(domain);

  // One team per domain.
  const rival = await createTeam(t, owner);
  const taken = await t.call('POST', `/api/dev/teams/${rival.id}/domain`, { token: owner.key, body: { domain } });
  expect(taken.status).toBe(409);
  expect(taken.body.code).toBe('DOMAIN_TAKEN');
});

test('another team cannot verify a domain claimed first by a team that then verified it (409 DOMAIN_TAKEN)', async () => {
  const first = await createTeam(t, owner);
  const second = await createTeam(t, owner);
  const other = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(served) });
  const domain = `127.0.0.1:${other.port}`;
  const claimFirst = await t.call('POST', `/api/dev/teams/${first.id}/domain`, { token: owner.key, body: { domain } });
  const claimSecond = await t.call('POST', `/api/dev/teams/${second.id}/domain`, { token: owner.key, body: { domain } });
  served = claimFirst.body.token;
  expect((await t.call('POST', `/api/dev/teams/${first.id}/domain/verify`, { token: owner.key })).status).toBe(200);
  served = claimSecond.body.token;
  const late = await t.call('POST', `/api/dev/teams/${second.id}/domain/verify`, { token: owner.key });
  expect(late.status).toBe(409);
  expect(late.body.code).toBe('DOMAIN_TAKEN');
  expect((await t.sql('select verified_domain from teams where id = ?', [second.id]))[0].verified_domain).toBeNull();
  other.stop(true);
});

test('without a claim, or with a server that does not answer, verification is 400 DOMAIN_NOT_VERIFIED; a malformed domain is 400', async () => {
  const fresh = await createTeam(t, owner);
  expect((await t.call('POST', `/api/dev/teams/${fresh.id}/domain/verify`, { token: owner.key })).body.code).toBe('DOMAIN_NOT_VERIFIED');
  await t.call('POST', `/api/dev/teams/${fresh.id}/domain`, { token: owner.key, body: { domain: '127.0.0.1:9' } });
  const unreachable = await t.call('POST', `/api/dev/teams/${fresh.id}/domain/verify`, { token: owner.key });
  expect(unreachable.status).toBe(400);
  expect(unreachable.body.code).toBe('DOMAIN_NOT_VERIFIED');
  for (const domain of ['', 'https://example.com', 'exa mple.com', 'nodot']) {
    expect((await t.call('POST', `/api/dev/teams/${fresh.id}/domain`, { token: owner.key, body: { domain } })).status).toBe(400);
  }
});

test("the team's audit: owners read it newest first, with the actor; others are refused", async () => {
  const audit = await t.call('GET', `/api/dev/teams/${team.id}/audit?limit=100`, { token: owner.key });
  expect(audit.status).toBe(200);
  const actions = audit.body.data.map((entry: { action: string }) => entry.action);
  expect(actions).toEqual(expect.arrayContaining(['team.created', 'invitation.created', 'member.joined', 'domain.claimed', 'domain.verified']));
  expect(actions[actions.length - 1]).toBe('team.created');
  expect(audit.body.data.find((entry: { action: string }) => entry.action === 'domain.verified').actor).toEqual({
    developerId: owner.id,
    name: 'Olivia Owner',
  });
  expect(audit.body.pagination.total).toBe(audit.body.data.length);
  const byAnalyst = await t.call('GET', `/api/dev/teams/${team.id}/audit`, { token: analyst.key });
  expect(byAnalyst.status).toBe(403);
  expect(byAnalyst.body.code).toBe('TEAM_ROLE_REQUIRED');
});

test("the team's audit also names team keys, removed members and deleted team apps, each with its actor", async () => {
  const crew = await teamOfThree(t);
  const key = await t.call('POST', '/api/dev/api-keys', {
    token: crew.maintainer.oauthToken,
    body: { name: 'ci', scopes: ['APP_READ'], teamId: crew.team.id },
  });
  expect(key.status).toBe(201);
  const app = await createApp(t, await teamKey(t, crew.maintainer, crew.team.id, ['APP_CREATE']), minimalApp());
  expect((await t.call('DELETE', `/api/dev/apps/${app.id}`, { token: crew.maintainer.key })).status).toBe(200);
  expect((await t.call('DELETE', `/api/dev/teams/${crew.team.id}/members/${crew.analyst.id}`, { token: crew.owner.key })).status).toBe(200);

  const audit = (await t.call('GET', `/api/dev/teams/${crew.team.id}/audit?limit=100`, { token: crew.owner.key })).body.data as {
    action: string;
    target: string;
    actor: { developerId: string };
  }[];
  const entry = (action: string, target: string) => audit.find((e) => e.action === action && e.target === target);
  expect(entry('key.created', key.body.id)?.actor.developerId).toBe(crew.maintainer.id);
  expect(entry('app.deleted', app.id)?.actor.developerId).toBe(crew.maintainer.id);
  expect(entry('member.removed', crew.analyst.id)?.actor.developerId).toBe(crew.owner.id);
});
