import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';
import { createTeam, join, member, teamOfThree, type Member } from './team-fixtures.ts';

let t: TestApp;
// The machine is shared: setting up the service and its members may take a while.
setDefaultTimeout(60_000);
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(() => t.close(), 60_000);

const auditActions = async (teamId: string) =>
  (await t.sql<{ action: string }>('select action from team_audit where team_id = ? order by created_at, id', [teamId])).map((row) => row.action);

describe('teams', () => {
  test('a verified developer creates a team and owns it; an unverified one is 403 DEVELOPER_NOT_VERIFIED', async () => {
    const owner = await member(t);
    const created = await t.call('POST', '/api/dev/teams', {
      token: owner.key,
      body: { name: 'Northwind Labs', websiteUrl: 'https://northwind.example.com' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Northwind Labs',
      websiteUrl: 'https://northwind.example.com',
      role: 'owner',
      memberCount: 1,
      appCount: 0,
      verifiedDomain: null,
    });
    const listed = await t.call('GET', '/api/dev/teams', { token: owner.oauthToken });
    expect(listed.body.data.map((team: { id: string }) => team.id)).toEqual([created.body.id]);

    const unverified = await member(t, { verified: false });
    const refused = await t.call('POST', '/api/dev/teams', { token: unverified.oauthToken, body: { name: 'Nope' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('DEVELOPER_NOT_VERIFIED');
    expect(await t.sql("select 1 from teams where name = 'Nope'")).toEqual([]);
  });

  test('bad input is 400 and creates nothing', async () => {
    const owner = await member(t);
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(81) }, { name: 'A', websiteUrl: 'ftp://x' }, { name: 'A', extra: 1 }]) {
      const response = await t.call('POST', '/api/dev/teams', { token: owner.oauthToken, body });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
    }
    expect(await t.sql('select 1 from team_members where developer_id = ?', [owner.id])).toEqual([]);
  });

  test('every team route is 404 to a non-member; members read; only owners rename and delete', async () => {
    const { team, maintainer, analyst, owner } = await teamOfThree(t);
    const stranger = await member(t);
    for (const [method, path, body] of [
      ['GET', `/api/dev/teams/${team.id}`, undefined],
      ['PUT', `/api/dev/teams/${team.id}`, { name: 'Taken over' }],
      ['DELETE', `/api/dev/teams/${team.id}`, undefined],
      ['GET', `/api/dev/teams/${team.id}/members`, undefined],
      ['POST', `/api/dev/teams/${team.id}/invitations`, { email: stranger.email, role: 'owner' }],
      ['GET', `/api/dev/teams/${team.id}/invitations`, undefined],
      ['PUT', `/api/dev/teams/${team.id}/members/${owner.id}`, { role: 'analyst' }],
      ['DELETE', `/api/dev/teams/${team.id}/members/${owner.id}`, undefined],
      ['GET', `/api/dev/teams/${team.id}/audit`, undefined],
    ] as const) {
      const response = await t.call(method, path, { token: stranger.key, body });
      expect({ path, method, status: response.status, code: response.body?.code }).toEqual({ path, method, status: 404, code: 'NOT_FOUND' });
    }
    expect((await t.call('GET', `/api/dev/teams/${team.id}`, { token: analyst.key })).body).toMatchObject({ role: 'analyst', memberCount: 3 });
    for (const who of [maintainer, analyst]) {
      const rename = await t.call('PUT', `/api/dev/teams/${team.id}`, { token: who.key, body: { name: 'Renamed' } });
      expect(rename.status).toBe(403);
      expect(rename.body.code).toBe('TEAM_ROLE_REQUIRED');
      const remove = await t.call('DELETE', `/api/dev/teams/${team.id}`, { token: who.key });
      expect(remove.body.code).toBe('TEAM_ROLE_REQUIRED');
    }
    const renamed = await t.call('PUT', `/api/dev/teams/${team.id}`, { token: owner.key, body: { name: 'Renamed', websiteUrl: null } });
    expect(renamed.body).toMatchObject({ name: 'Renamed', websiteUrl: null });
  });

  test('a team that owns an app cannot be deleted (409 TEAM_NOT_EMPTY); an empty one can', async () => {
    const owner = await member(t);
    const team = await createTeam(t, owner);
    const app = await t.call('POST', '/api/dev/apps', {
      token: owner.key,
      body: { name: 'Team App', description: 'Made together.', category: 'UTILITIES', environment: 'staging', teamId: team.id },
    });
    expect(app.status).toBe(201);
    const refused = await t.call('DELETE', `/api/dev/teams/${team.id}`, { token: owner.oauthToken });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('TEAM_NOT_EMPTY');
    expect(await t.sql('select 1 from teams where id = ?', [team.id])).toHaveLength(1);
    expect((await t.call('DELETE', `/api/dev/apps/${app.body.id}`, { token: owner.key })).status).toBe(200);
    const deleted = await t.call('DELETE', `/api/dev/teams/${team.id}`, { token: owner.oauthToken });
    expect(deleted.status).toBe(200);
    expect(deleted.body.id).toBe(team.id);
    expect(await t.sql('select 1 from teams where id = ?', [team.id])).toEqual([]);
  });
});

describe('invitations', () => {
  let owner: Member;
  let teamId: string;
  beforeAll(async () => {
    owner = await member(t);
    teamId = (await createTeam(t, owner, { name: 'Invite Co' })).id;
  });

  test('an owner invites by e-mail; the invitee gets a mail without a secret, sees it (case-insensitive) and accepts with their own credentials', async () => {
    const invitee = await member(t);
    const invited = await t.call('POST', `/api/dev/teams/${teamId}/invitations`, {
      token: owner.key,
      body: { email: invitee.email.toUpperCase(), role: 'maintainer' },
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ teamId, teamName: 'Invite Co', role: 'maintainer' });
    const days = (Date.parse(invited.body.expiresAt) - Date.parse(invited.body.createdAt)) / 86_400_000;
    expect(days).toBeCloseTo(7, 3);

    const mail = await eventually(async () => (await t.sql('select * from emails where message_id = ?', [`team-invitation:${invited.body.id}`]))[0]);
    expect(mail.to_address).toBe(invitee.email.toUpperCase());
    expect(mail.subject).toContain('Invite Co');
    expect(mail.text_body).not.toContain(invited.body.id);

    const mine = await t.call('GET', '/api/dev/invitations', { token: invitee.key });
    expect(mine.body.data.map((i: { id: string }) => i.id)).toEqual([invited.body.id]);
    expect(
      (await t.call('GET', `/api/dev/teams/${teamId}/invitations`, { token: owner.oauthToken })).body.data.map((i: { id: string }) => i.id),
    ).toContain(invited.body.id);

    const stranger = await member(t);
    const theirs = await t.call('POST', `/api/dev/invitations/${invited.body.id}/accept`, { token: stranger.oauthToken });
    expect(theirs.status).toBe(404);
    expect((await t.call('POST', `/api/dev/invitations/${invited.body.id}/decline`, { token: stranger.key })).status).toBe(404);

    const accepted = await t.call('POST', `/api/dev/invitations/${invited.body.id}/accept`, { token: invitee.oauthToken });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ role: 'maintainer', team: { id: teamId, role: 'maintainer', memberCount: 2 } });
    expect((await t.call('POST', `/api/dev/invitations/${invited.body.id}/accept`, { token: invitee.oauthToken })).status).toBe(404);

    const again = await t.call('POST', `/api/dev/teams/${teamId}/invitations`, { token: owner.key, body: { email: invitee.email, role: 'analyst' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('ALREADY_MEMBER');
    expect(await auditActions(teamId)).toEqual(expect.arrayContaining(['invitation.created', 'member.joined']));
  });

  test('declined, withdrawn and expired invitations are 404 to the invitee', async () => {
    const invitee = await member(t);
    const invite = async () =>
      (await t.call('POST', `/api/dev/teams/${teamId}/invitations`, { token: owner.key, body: { email: invitee.email, role: 'analyst' } })).body
        .id as string;

    const declined = await invite();
    expect((await t.call('POST', `/api/dev/invitations/${declined}/decline`, { token: invitee.key })).status).toBe(200);
    expect((await t.call('POST', `/api/dev/invitations/${declined}/accept`, { token: invitee.key })).status).toBe(404);

    const withdrawn = await invite();
    const withdrawal = await t.call('DELETE', `/api/dev/teams/${teamId}/invitations/${withdrawn}`, { token: owner.key });
    expect(withdrawal.status).toBe(200);
    expect((await t.call('POST', `/api/dev/invitations/${withdrawn}/accept`, { token: invitee.key })).status).toBe(404);
    expect((await t.call('DELETE', `/api/dev/teams/${teamId}/invitations/${withdrawn}`, { token: owner.key })).status).toBe(404);

    const expired = await invite();
    await t.sql(`update team_invitations set expires_at = now() - interval '1 second' where id = ?`, [expired]);
    expect((await t.call('GET', '/api/dev/invitations', { token: invitee.key })).body.data).toEqual([]);
    const late = await t.call('POST', `/api/dev/invitations/${expired}/accept`, { token: invitee.key });
    expect(late.status).toBe(404);
    expect(await t.sql('select 1 from team_members where team_id = ? and developer_id = ?', [teamId, invitee.id])).toEqual([]);
  });

  test('an unknown role is 400; an unverified invitee cannot accept (403)', async () => {
    const bad = await t.call('POST', `/api/dev/teams/${teamId}/invitations`, { token: owner.key, body: { email: 'x@example.com', role: 'admin' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_FAILED');
    const unverified = await member(t, { verified: false });
    const invited = await t.call('POST', `/api/dev/teams/${teamId}/invitations`, {
      token: owner.key,
      body: { email: unverified.email, role: 'analyst' },
    });
    const accept = await t.call('POST', `/api/dev/invitations/${invited.body.id}/accept`, { token: unverified.oauthToken });
    expect(accept.status).toBe(403);
    expect(accept.body.code).toBe('DEVELOPER_NOT_VERIFIED');
  });
});

describe('members', () => {
  test('owners change roles; the last owner can neither leave nor be demoted (409 LAST_OWNER)', async () => {
    const { team, owner, maintainer, analyst } = await teamOfThree(t);
    const members = await t.call('GET', `/api/dev/teams/${team.id}/members`, { token: analyst.key });
    expect(members.body.data.map((m: { role: string }) => m.role)).toEqual(['owner', 'maintainer', 'analyst']);
    expect(members.body.data[0]).toMatchObject({ developerId: owner.id, name: 'Olivia Owner', email: owner.email });

    const leave = await t.call('DELETE', `/api/dev/teams/${team.id}/members/${owner.id}`, { token: owner.key });
    expect(leave.status).toBe(409);
    expect(leave.body.code).toBe('LAST_OWNER');
    const demote = await t.call('PUT', `/api/dev/teams/${team.id}/members/${owner.id}`, { token: owner.key, body: { role: 'maintainer' } });
    expect(demote.body.code).toBe('LAST_OWNER');
    const byMaintainer = await t.call('PUT', `/api/dev/teams/${team.id}/members/${analyst.id}`, { token: maintainer.key, body: { role: 'owner' } });
    expect(byMaintainer.body.code).toBe('TEAM_ROLE_REQUIRED');
    const badRole = await t.call('PUT', `/api/dev/teams/${team.id}/members/${analyst.id}`, { token: owner.key, body: { role: 'boss' } });
    expect(badRole.status).toBe(400);

    const promoted = await t.call('PUT', `/api/dev/teams/${team.id}/members/${maintainer.id}`, { token: owner.key, body: { role: 'owner' } });
    expect(promoted.body).toMatchObject({ developerId: maintainer.id, role: 'owner' });
    const left = await t.call('DELETE', `/api/dev/teams/${team.id}/members/${owner.id}`, { token: owner.oauthToken });
    expect(left.status).toBe(200);
    expect((await t.call('GET', `/api/dev/teams/${team.id}`, { token: owner.key })).status).toBe(404);

    const analystLeaves = await t.call('DELETE', `/api/dev/teams/${team.id}/members/${analyst.id}`, { token: analyst.key });
    expect(analystLeaves.status).toBe(200);
    expect(await auditActions(team.id)).toEqual(expect.arrayContaining(['member.role_changed', 'member.left']));
  });

  test('at most 100 members a team and 50 teams a developer (409 LIMIT_EXCEEDED)', async () => {
    const owner = await member(t);
    const team = await createTeam(t, owner);
    await t.sql(
      `insert into developers (id, platform_user_id, name, email, status, created_at, updated_at)
       select gen_random_uuid(), 'filler-' || g || '-' || ?, 'Filler ' || g, 'filler-' || g || '-' || ? || '@example.com', 'VERIFIED', now(), now()
       from generate_series(1, 99) g`,
      [team.id, team.id],
    );
    await t.sql(
      `insert into team_members (id, team_id, developer_id, role, joined_at)
       select gen_random_uuid(), ?, id, 'analyst', now() from developers where platform_user_id like ?`,
      [team.id, `filler-%-${team.id}`],
    );
    const full = await t.call('POST', `/api/dev/teams/${team.id}/invitations`, {
      token: owner.key,
      body: { email: 'late@example.com', role: 'analyst' },
    });
    expect(full.status).toBe(409);
    expect(full.body.code).toBe('LIMIT_EXCEEDED');

    const busy = await member(t);
    for (let i = 0; i < 50; i++) expect((await t.call('POST', '/api/dev/teams', { token: busy.key, body: { name: `Busy ${i}` } })).status).toBe(201);
    const fiftyFirst = await t.call('POST', '/api/dev/teams', { token: busy.key, body: { name: 'One too many' } });
    expect(fiftyFirst.status).toBe(409);
    expect(fiftyFirst.body.code).toBe('LIMIT_EXCEEDED');
    expect(await t.sql('select count(*)::int as n from team_members where developer_id = ?', [busy.id])).toEqual([{ n: 50 }]);
  });

  test('joining is refused past 50 teams too', async () => {
    const owner = await member(t);
    const team = await createTeam(t, owner);
    const joiner = await member(t);
    await t.sql(
      `with made as (insert into teams (id, name, created_at, updated_at) select gen_random_uuid(), 'Filler', now(), now() from generate_series(1, 50) returning id)
       insert into team_members (id, team_id, developer_id, role, joined_at) select gen_random_uuid(), id, ?, 'owner', now() from made`,
      [joiner.id],
    );
    await expect(join(t, team.id, owner, joiner, 'analyst')).rejects.toThrow(/409.*LIMIT_EXCEEDED/);
  });
});
