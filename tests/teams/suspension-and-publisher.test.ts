import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { cliRunner } from '../support/cli.ts';
import { approvedApp, completeApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { createTeam, join as joinTeam, member, type Member } from './team-fixtures.ts';

let t: TestApp;
let owner: Member;
let maintainer: Member;
let cli: ReturnType<typeof cliRunner>;

// The machine is shared: setting up the service and its members may take a while.
setDefaultTimeout(60_000);
beforeAll(async () => {
  t = await createTestApp();
  owner = await member(t, { name: 'Pat Person' });
  maintainer = await member(t);
  cli = cliRunner(t);
}, 60_000);
afterAll(() => t.close(), 60_000);

const publicStatus = async (slug: string) => (await t.call('GET', `/api/apps/${slug}`)).status;
const install = async (slug: string) => (await t.call('POST', `/api/apps/${slug}/install`, { body: { installationId: crypto.randomUUID() } })).status;
const installRows = async (appId: string) => (await t.sql<{ n: number }>('select count(*)::int as n from installs where app_id = ?', [appId]))[0]!.n;
const listedSlugs = async () => (await t.call('GET', '/api/apps?limit=100')).body.data.map((a: { slug: string }) => a.slug) as string[];

test('public views name the publisher: the team for a team app (also as `developer`), else the developer', async () => {
  const team = await createTeam(t, owner, { name: 'Lighthouse Apps', websiteUrl: 'https://lighthouse.example.com' });
  const teamApp = (await approvedApp(t, owner.key, completeApp({ teamId: team.id }))) as { slug: string };
  const personal = (await approvedApp(t, owner.key, completeApp())) as { slug: string };
  const one = await t.call('GET', `/api/apps/${teamApp.slug}`);
  expect(one.body.publisher).toEqual({ name: 'Lighthouse Apps', websiteUrl: 'https://lighthouse.example.com', verifiedDomain: null });
  expect(one.body.developer).toEqual({ name: 'Lighthouse Apps', companyName: 'Lighthouse Apps', websiteUrl: 'https://lighthouse.example.com' });
  const listed = (await t.call('GET', '/api/apps?limit=100')).body.data.find((a: { slug: string }) => a.slug === teamApp.slug);
  expect(listed.publisher.name).toBe('Lighthouse Apps');
  const mine = await t.call('GET', `/api/apps/${personal.slug}`);
  expect(mine.body.publisher).toEqual({ name: 'Pat Person', websiteUrl: null, verifiedDomain: null });
  expect(mine.body.developer.name).toBe('Pat Person');
});

test("a suspended team's apps are 410 and leave the catalogue; its members cannot act for it; reinstated, all comes back", async () => {
  const team = await createTeam(t, owner, { name: `Suspendable ${crypto.randomUUID().slice(0, 6)}` });
  await joinTeam(t, team.id, owner, maintainer, 'maintainer');
  const app = (await approvedApp(t, owner.key, completeApp({ teamId: team.id }))) as { id: string; slug: string };
  expect(await publicStatus(app.slug)).toBe(200);

  const suspended = await cli('teams:suspend', team.name);
  expect(suspended.stderr).toBe('');
  expect(suspended.exitCode).toBe(0);
  expect(suspended.stdout).toContain('SUSPENDED');
  await eventually(async () => (await publicStatus(app.slug)) === 410);
  expect((await t.call('GET', `/api/apps/${app.slug}`)).body.code).toBe('APP_UNAVAILABLE');
  expect(await listedSlugs()).not.toContain(app.slug);
  // Nor can it be installed: 410, as its page, and nothing is recorded.
  const rows = await installRows(app.id);
  expect(await install(app.slug)).toBe(410);
  expect(await installRows(app.id)).toBe(rows);
  for (const [method, path, body] of [
    ['GET', `/api/dev/apps/${app.id}`, undefined],
    ['POST', `/api/dev/apps/${app.id}/revisions`, { description: 'While suspended.' }],
    ['GET', `/api/dev/teams/${team.id}/members`, undefined],
  ] as const) {
    const response = await t.call(method, path, { token: maintainer.key, body });
    expect({ path, status: response.status, code: response.body.code }).toEqual({ path, status: 403, code: 'TEAM_SUSPENDED' });
  }
  expect((await t.call('GET', '/api/dev/apps?limit=100', { token: maintainer.key })).body.data.map((a: { id: string }) => a.id)).not.toContain(
    app.id,
  );
  const again = await cli('teams:suspend', team.id);
  expect(again.exitCode).toBe(1);
  expect(again.stderr).toContain('INVALID_STATE_TRANSITION');

  const reinstated = await cli('teams:reinstate', team.id);
  expect(reinstated.exitCode).toBe(0);
  await eventually(async () => (await publicStatus(app.slug)) === 200);
  expect(await listedSlugs()).toContain(app.slug);
  expect(await install(app.slug)).toBe(201);
  expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: maintainer.key })).status).toBe(200);
  const audit = await t.sql("select action from audit_log where subject_type = 'team' and subject_id = ? order by created_at", [team.id]);
  expect(audit.map((row) => row.action)).toEqual(['team.suspend', 'team.reinstate']);
});

test('cli: an unknown team is a clear failure', async () => {
  const unknown = await cli('teams:suspend', 'No Such Team');
  expect(unknown.exitCode).toBe(1);
  expect(unknown.stderr).toContain('NOT_FOUND');
});

test("a suspended developer loses every right through every team, but the team's apps stay listed", async () => {
  const creator = await member(t);
  const team = await createTeam(t, creator);
  await joinTeam(t, team.id, creator, maintainer, 'owner');
  const app = (await approvedApp(t, creator.key, completeApp({ teamId: team.id }))) as { id: string; slug: string };
  await transitionDeveloper({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs }, creator.id, 'suspend', CLI_ACTOR);
  expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: creator.key })).status).toBe(401);
  const viaToken = await t.call('GET', `/api/dev/teams/${team.id}`, { token: creator.oauthToken });
  expect(viaToken.status).toBe(403);
  expect(viaToken.body.code).toBe('DEVELOPER_SUSPENDED');
  expect(await publicStatus(app.slug)).toBe(200);
  expect(await listedSlugs()).toContain(app.slug);
  // Listed, so installable: the team's standing decides, not its creator's.
  expect(await install(app.slug)).toBe(201);
  expect(await installRows(app.id)).toBe(1);
  expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: maintainer.key })).status).toBe(200);
});
