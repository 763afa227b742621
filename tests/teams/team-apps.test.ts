import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createTestApp, mintKey, type TestApp } from '../support/harness.ts';
import { appRow, approvedApp, completeApp, createApp, minimalApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { createTeam, join, member, teamKey, teamOfThree, type Member } from './team-fixtures.ts';

let t: TestApp;
let team: { id: string; name: string };
let owner: Member;
let maintainer: Member;
let analyst: Member;
let stranger: Member;

// The machine is shared: setting up the service and its members may take a while.
setDefaultTimeout(60_000);
beforeAll(async () => {
  t = await createTestApp();
  ({ team, owner, maintainer, analyst } = await teamOfThree(t));
  stranger = await member(t);
}, 60_000);
afterAll(() => t.close(), 60_000);

const teamApp = (overrides: Record<string, unknown> = {}) => completeApp({ teamId: team.id, ...overrides });

/** An approved team app with an install and a review, and a pending revision. */
async function livedInApp(key: string, body: object) {
  const app = (await approvedApp(t, key, body)) as { id: string; slug: string };
  const user = await t.token(`user-${crypto.randomUUID()}`);
  expect((await t.call('POST', `/api/apps/${app.slug}/install`, { token: user, body: {} })).status).toBe(201);
  expect((await t.call('POST', `/api/apps/${app.slug}/reviews`, { token: user, body: { rating: 5, title: 'Great' } })).status).toBe(201);
  expect((await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { description: 'A better description.' } })).status).toBe(
    201,
  );
  return app;
}

describe('team apps', () => {
  test('maintainers and owners create apps for the team; an analyst cannot (403 TEAM_ROLE_REQUIRED); a stranger’s team id is 404; nothing is created', async () => {
    const created = await t.call('POST', '/api/dev/apps', { token: maintainer.key, body: teamApp() });
    expect(created.status).toBe(201);
    expect(created.body.team).toEqual({ id: team.id, name: team.name });
    const before = await t.sql('select count(*)::int as n from apps');
    const byAnalyst = await t.call('POST', '/api/dev/apps', { token: analyst.key, body: teamApp() });
    expect(byAnalyst.status).toBe(403);
    expect(byAnalyst.body.code).toBe('TEAM_ROLE_REQUIRED');
    const byStranger = await t.call('POST', '/api/dev/apps', { token: stranger.key, body: teamApp() });
    expect(byStranger.status).toBe(404);
    const malformed = await t.call('POST', '/api/dev/apps', { token: owner.key, body: teamApp({ teamId: 'not-a-uuid' }) });
    expect(malformed.status).toBe(400);
    expect(await t.sql('select count(*)::int as n from apps')).toEqual(before);
  });

  test('an analyst reads the app, its preflight, analytics and reviews, but cannot edit, submit, revise, delete or reply', async () => {
    const app = await createApp(t, owner.key, teamApp());
    for (const path of [`/api/dev/apps/${app.id}`, `/api/dev/apps/${app.id}/analytics`, `/api/dev/apps/${app.id}/reviews`]) {
      expect((await t.call('GET', path, { token: analyst.key })).status).toBe(200);
    }
    expect((await t.call('POST', `/api/dev/apps/${app.id}/preflight`, { token: analyst.key })).status).toBe(200);
    const before = await appRow(t, app.id);
    for (const [method, path, body] of [
      ['PUT', `/api/dev/apps/${app.id}`, { description: 'Changed by an analyst.' }],
      ['POST', `/api/dev/apps/${app.id}/submit`, undefined],
      ['POST', `/api/dev/apps/${app.id}/revisions`, { description: 'Changed by an analyst.' }],
      ['DELETE', `/api/dev/apps/${app.id}`, undefined],
      ['POST', `/api/dev/apps/${app.id}/transfer`, { teamId: null }],
      ['PUT', `/api/dev/apps/${app.id}/reviews/${crypto.randomUUID()}/reply`, { body: 'Thanks!' }],
      ['DELETE', `/api/dev/apps/${app.id}/reviews/${crypto.randomUUID()}/reply`, undefined],
    ] as const) {
      const response = await t.call(method, path, { token: analyst.key, body });
      expect({ method, path, status: response.status, code: response.body.code }).toEqual({ method, path, status: 403, code: 'TEAM_ROLE_REQUIRED' });
    }
    expect(await appRow(t, app.id)).toEqual(before);
    // Everyone else: 404, as if the app did not exist.
    expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: stranger.key })).status).toBe(404);
    expect((await t.call('PUT', `/api/dev/apps/${app.id}`, { token: stranger.key, body: { description: 'x' } })).status).toBe(404);
    // A maintainer edits and submits.
    expect(
      (await t.call('PUT', `/api/dev/apps/${app.id}`, { token: maintainer.key, body: { description: 'Edited by the maintainer.' } })).status,
    ).toBe(200);
    expect((await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: maintainer.key })).body.status).toBe('PENDING');
  });

  test("a request's rights are the role's rights ∩ the key's scopes", async () => {
    const app = await createApp(t, owner.key, teamApp());
    const readOnly = await mintKey(t, owner, ['APP_READ']);
    const refused = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: readOnly, body: { description: 'Nope.' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('INSUFFICIENT_SCOPE');
    expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: readOnly })).status).toBe(200);
  });

  test('the list shows personal apps and every team’s; ?teamId= narrows to one team, and is 404 for a team not yours', async () => {
    const mine = await createApp(t, maintainer.key, minimalApp());
    const ours = await createApp(t, maintainer.key, minimalApp({ teamId: team.id }));
    const all = (await t.call('GET', '/api/dev/apps?limit=100', { token: maintainer.key })).body.data.map((a: { id: string }) => a.id);
    expect(all).toEqual(expect.arrayContaining([mine.id, ours.id]));
    const narrowed = await t.call('GET', `/api/dev/apps?limit=100&teamId=${team.id}`, { token: maintainer.key });
    expect(narrowed.body.data.map((a: { id: string }) => a.id)).toContain(ours.id);
    expect(narrowed.body.data.map((a: { id: string }) => a.id)).not.toContain(mine.id);
    expect(narrowed.body.data.every((a: { team: { id: string } | null }) => a.team?.id === team.id)).toBe(true);
    expect((await t.call('GET', `/api/dev/apps?teamId=${team.id}`, { token: stranger.key })).status).toBe(404);
    const strangers = (await t.call('GET', '/api/dev/apps?limit=100', { token: stranger.key })).body.data;
    expect(strangers.map((a: { id: string }) => a.id)).not.toContain(ours.id);
    expect((await t.call('GET', `/api/dev/apps/${mine.id}`, { token: maintainer.key })).body.team).toBeNull();
  });
});

describe('team keys', () => {
  test('a team key reaches only its team’s apps: personal apps are 404, and it creates in its team', async () => {
    const personal = await createApp(t, maintainer.key, minimalApp());
    const key = await teamKey(t, maintainer, team.id);
    const keys = await t.call('GET', '/api/dev/api-keys', { token: maintainer.oauthToken });
    expect(keys.body.data.find((k: { teamId: string | null }) => k.teamId === team.id)).toBeDefined();
    expect((await t.call('GET', `/api/dev/apps/${personal.id}`, { token: key })).status).toBe(404);
    expect((await t.call('PUT', `/api/dev/apps/${personal.id}`, { token: key, body: { description: 'x' } })).status).toBe(404);
    const created = await t.call('POST', '/api/dev/apps', { token: key, body: minimalApp() });
    expect(created.status).toBe(201);
    expect(created.body.team.id).toBe(team.id);
    const listed = (await t.call('GET', '/api/dev/apps?limit=100', { token: key })).body.data;
    expect(listed.every((a: { team: { id: string } | null }) => a.team?.id === team.id)).toBe(true);
    const personalWanted = await t.call('POST', '/api/dev/apps', { token: key, body: minimalApp({ teamId: null }) });
    expect(personalWanted.status).toBe(404);
    // Another team of the same developer is out of its reach too.
    const otherTeam = await createTeam(t, maintainer);
    expect((await t.call('POST', '/api/dev/apps', { token: key, body: minimalApp({ teamId: otherTeam.id }) })).status).toBe(404);
    expect((await t.call('GET', `/api/dev/teams/${otherTeam.id}`, { token: key })).status).toBe(404);
  });

  test('a key for a team you are not in is 404 and mints nothing', async () => {
    const before = await t.sql('select count(*)::int as n from api_keys where developer_id = ?', [stranger.id]);
    const response = await t.call('POST', '/api/dev/api-keys', {
      token: stranger.oauthToken,
      body: { name: 'sneaky', scopes: ['APP_READ'], teamId: team.id },
    });
    expect(response.status).toBe(404);
    expect(await t.sql('select count(*)::int as n from api_keys where developer_id = ?', [stranger.id])).toEqual(before);
  });

  test("a removed member's keys are refused on the very next request, and every right through the team ends", async () => {
    const leaver = await member(t);
    await join(t, team.id, owner, leaver, 'maintainer');
    const app = await createApp(t, owner.key, teamApp());
    const key = await teamKey(t, leaver, team.id);
    const child = (await t.call('POST', '/api/dev/api-keys', { token: key, body: { name: 'child', scopes: ['APP_READ'] } })).body.key as string;
    expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: key })).status).toBe(200);
    expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: child })).status).toBe(200);
    expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: leaver.key })).status).toBe(200);

    expect((await t.call('DELETE', `/api/dev/teams/${team.id}/members/${leaver.id}`, { token: owner.oauthToken })).status).toBe(200);
    for (const token of [key, child]) {
      const refused = await t.call('GET', `/api/dev/apps/${app.id}`, { token });
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('UNAUTHENTICATED');
    }
    expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: leaver.key })).status).toBe(404);
    expect((await t.call('GET', `/api/dev/teams/${team.id}`, { token: leaver.oauthToken })).status).toBe(404);
  });
});

describe('transfers', () => {
  test('a personal app moves to a team with its status, slug, installs, reviews, history and pending revision; audited on both sides', async () => {
    const app = await livedInApp(maintainer.key, completeApp());
    // The counters are rolled up by a job: wait for them, so the transfer is seen to keep them.
    const before = await eventually(async () => {
      const view = await t.call('GET', `/api/dev/apps/${app.id}`, { token: maintainer.key });
      return view.body.installCount === 1 && view.body.activeInstalls === 1 && view.body.reviewCount === 1 && view;
    });
    const history = await t.sql('select count(*)::int as n from app_transitions where app_id = ?', [app.id]);
    const moved = await t.call('POST', `/api/dev/apps/${app.id}/transfer`, { token: maintainer.key, body: { teamId: team.id } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      id: app.id,
      slug: app.slug,
      status: 'APPROVED',
      installCount: 1,
      activeInstalls: 1,
      reviewCount: 1,
      averageRating: 5,
      team: { id: team.id, name: team.name },
      pendingRevision: { id: before.body.pendingRevision.id, changes: { description: 'A better description.' } },
    });
    expect(await t.sql('select count(*)::int as n from reviews where app_id = ?', [app.id])).toEqual([{ n: 1 }]);
    expect((await t.sql('select count(*)::int as n from app_transitions where app_id = ?', [app.id]))[0].n).toBe(history[0].n + 1);
    const [audit] = await t.sql('select action, target from team_audit where team_id = ? and target = ?', [team.id, app.id]);
    expect(audit).toEqual({ action: 'app.transferred_in', target: app.id });
    // Now the team's: the analyst reads it, the public page still answers under its slug.
    expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: analyst.key })).status).toBe(200);
    expect((await t.call('GET', `/api/apps/${app.slug}`)).status).toBe(200);
  });

  test('a team app moves to another team only when the caller owns both; back to a person only by a team owner', async () => {
    const app = await createApp(t, owner.key, teamApp());
    const second = await createTeam(t, maintainer);
    const byMaintainer = await t.call('POST', `/api/dev/apps/${app.id}/transfer`, { token: maintainer.key, body: { teamId: second.id } });
    expect(byMaintainer.status).toBe(403);
    expect(byMaintainer.body.code).toBe('TEAM_ROLE_REQUIRED');
    const toStrangers = await t.call('POST', `/api/dev/apps/${app.id}/transfer`, { token: owner.key, body: { teamId: second.id } });
    expect(toStrangers.status).toBe(404);
    expect((await appRow(t, app.id)).team_id).toBe(team.id);

    await join(t, second.id, maintainer, owner, 'maintainer');
    const notOwnerOfTarget = await t.call('POST', `/api/dev/apps/${app.id}/transfer`, { token: owner.key, body: { teamId: second.id } });
    expect(notOwnerOfTarget.body.code).toBe('TEAM_ROLE_REQUIRED');
    await t.call('PUT', `/api/dev/teams/${second.id}/members/${owner.id}`, { token: maintainer.key, body: { role: 'owner' } });
    const moved = await t.call('POST', `/api/dev/apps/${app.id}/transfer`, { token: owner.key, body: { teamId: second.id } });
    expect(moved.status).toBe(200);
    expect(moved.body.team.id).toBe(second.id);
    expect((await t.sql('select action from team_audit where target = ? order by created_at', [app.id])).map((r) => r.action)).toEqual([
      'app.transferred_out',
      'app.transferred_in',
    ]);

    const same = await t.call('POST', `/api/dev/apps/${app.id}/transfer`, { token: owner.key, body: { teamId: second.id } });
    expect(same.status).toBe(409);
    const home = await t.call('POST', `/api/dev/apps/${app.id}/transfer`, { token: owner.key, body: { teamId: null } });
    expect(home.status).toBe(200);
    expect(home.body.team).toBeNull();
    expect((await appRow(t, app.id)).developer_id).toBe(owner.id);
    expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: maintainer.key })).status).toBe(404);
  });
});
