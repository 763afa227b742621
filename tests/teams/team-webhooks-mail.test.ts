import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { approvedApp, completeApp, createApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { member, teamKey, teamOfThree, type Member } from './team-fixtures.ts';

let t: TestApp;
let team: { id: string; name: string };
let owner: Member;
let maintainer: Member;
let analyst: Member;
let stranger: Member;

// The machine is shared: setting up the service and its members may take a while.
setDefaultTimeout(60_000);
beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true' });
  ({ team, owner, maintainer, analyst } = await teamOfThree(t));
  stranger = await member(t);
}, 60_000);
afterAll(() => t.close(), 60_000);

const hook = { url: 'http://127.0.0.1:9/hook', events: ['app.submitted'] };
const deliveriesTo = async (endpointId: string) =>
  (
    await t.sql<{ type: string; body: string }>(
      'select e.type, e.body from webhook_deliveries d join webhook_events e on e.id = d.event_id where d.endpoint_id = ?',
      [endpointId],
    )
  ).map((row) => JSON.parse(row.body).data.id as string);

test("a team endpoint gets the team's app events; a personal one only personal apps'", async () => {
  const teamHook = await t.call('POST', '/api/dev/webhooks', { token: maintainer.oauthToken, body: { ...hook, teamId: team.id } });
  expect(teamHook.status).toBe(201);
  expect(teamHook.body.teamId).toBe(team.id);
  const personalHook = await t.call('POST', '/api/dev/webhooks', { token: maintainer.key, body: hook });
  expect(personalHook.body.teamId).toBeNull();

  const byAnalyst = await t.call('POST', '/api/dev/webhooks', { token: analyst.key, body: { ...hook, teamId: team.id } });
  expect(byAnalyst.status).toBe(403);
  expect(byAnalyst.body.code).toBe('TEAM_ROLE_REQUIRED');
  expect((await t.call('POST', '/api/dev/webhooks', { token: stranger.key, body: { ...hook, teamId: team.id } })).status).toBe(404);
  expect((await t.call('GET', `/api/dev/webhooks/${teamHook.body.id}`, { token: stranger.key })).status).toBe(404);
  expect((await t.call('GET', `/api/dev/webhooks/${teamHook.body.id}`, { token: analyst.key })).body.code).toBe('TEAM_ROLE_REQUIRED');
  // The team's other maintainer-or-owner manages it too; a team key sees only its team's.
  expect((await t.call('GET', `/api/dev/webhooks/${teamHook.body.id}`, { token: owner.key })).status).toBe(200);
  const key = await teamKey(t, maintainer, team.id);
  expect((await t.call('GET', '/api/dev/webhooks', { token: key })).body.data.map((h: { id: string }) => h.id)).toEqual([teamHook.body.id]);
  expect((await t.call('GET', `/api/dev/webhooks/${personalHook.body.id}`, { token: key })).status).toBe(404);

  const teamApp = await createApp(t, maintainer.key, completeApp({ teamId: team.id }));
  const personalApp = await createApp(t, maintainer.key, completeApp());
  for (const app of [teamApp, personalApp])
    expect((await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: maintainer.key })).status).toBe(200);
  expect(await deliveriesTo(teamHook.body.id)).toEqual([teamApp.id]);
  expect(await deliveriesTo(personalHook.body.id)).toEqual([personalApp.id]);
});

test('decisions on a team app are e-mailed to its owners and maintainers, each once; not to analysts', async () => {
  const app = (await approvedApp(t, owner.key, completeApp({ teamId: team.id }))) as { id: string };
  const recipients = await eventually(async () => {
    const rows = await t.sql<{ to_address: string }>("select to_address from emails where app_id = ? and kind = 'app-approved'", [app.id]);
    return rows.length >= 2 && rows.map((row) => row.to_address).sort();
  });
  expect(recipients).toEqual([owner.email, maintainer.email].sort());
  const jobs = await t.sql<{ n: number }>("select count(*)::int as n from pgboss.job where name = 'mail.send' and data->>'appId' = ?", [app.id]);
  expect(jobs[0]!.n).toBe(2);
  expect(recipients).not.toContain(analyst.email);
});
