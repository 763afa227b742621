import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { completeApp, createApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { createAdminAccount, signedIn } from '../console/support.ts';
import { createTeam, join, member, type Member } from './team-fixtures.ts';

let t: TestApp;
let owner: Member;
let team: { id: string; name: string };

// The machine is shared: setting up the service and its members may take a while.
setDefaultTimeout(60_000);
beforeAll(async () => {
  t = await createTestApp();
  owner = await member(t, { name: 'Rosa <Owner>' });
  team = await createTeam(t, owner, { name: 'Fjord <Digital>' });
  await join(t, team.id, owner, await member(t, { name: 'Mo Maintainer' }), 'maintainer');
}, 60_000);
afterAll(() => t.close(), 60_000);

test('the Teams page finds a team; its page shows members, apps and audit, escaped', async () => {
  await createApp(t, owner.key, completeApp({ teamId: team.id, name: 'Fjord Planner' }));
  const client = await signedIn(t, await createAdminAccount(t, 'reviewer'));
  const list = await client.get('/admin/teams?q=fjord');
  expect(list.status).toBe(200);
  expect(list.text).toContain('Fjord &lt;Digital&gt;');
  expect(list.text).not.toContain('Fjord <Digital>');
  expect((await client.get('/admin/teams?q=nothing-like-it')).text).toContain('No team matches.');
  const page = await client.get(`/admin/teams/${team.id}`);
  expect(page.text).toContain('Rosa &lt;Owner&gt;');
  expect(page.text).toContain('Mo Maintainer');
  expect(page.text).toContain('Fjord Planner');
  expect(page.text).toContain('member.joined');
  // A reviewer may look, not suspend.
  expect(page.text).not.toContain(`/admin/teams/${team.id}/suspend`);
  expect((await client.post(`/admin/teams/${team.id}/suspend`, { confirmed: 'yes' })).status).toBe(403);
});

test('support suspends and reinstates a team from the console: its app is 410, then back', async () => {
  const app = await createApp(t, owner.key, completeApp({ teamId: team.id }));
  await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: owner.key });
  await t.sql(`update apps set status = 'APPROVED', first_approved_at = now() where id = ?`, [app.id]);
  const client = await signedIn(t, await createAdminAccount(t, 'support'));
  const page = await client.get(`/admin/teams/${team.id}`);
  expect(page.text).toContain(`/admin/teams/${team.id}/suspend`);
  const suspended = await client.post(`/admin/teams/${team.id}/suspend`, { confirmed: 'yes' });
  expect(suspended.status).toBe(303);
  await eventually(async () => (await t.call('GET', `/api/apps/${app.slug}`)).status === 410);
  const [entry] = await t.sql("select actor, action from audit_log where subject_type = 'team' and subject_id = ?", [team.id]);
  expect(entry.action).toBe('team.suspend');
  expect(entry.actor).toStartWith('admin:');
  // Suspending again is refused and changes nothing.
  const twice = await client.post(`/admin/teams/${team.id}/suspend`, { confirmed: 'yes' }, { htmx: true });
  expect(twice.text).toContain('already suspended');
  expect((await client.post(`/admin/teams/${team.id}/reinstate`, { confirmed: 'yes' })).status).toBe(303);
  await eventually(async () => (await t.call('GET', `/api/apps/${app.slug}`)).status === 200);
});

test('the review page names the publishing team, its verified domain and its other apps', async () => {
  await t.sql(`update teams set verified_domain = 'fjord.example.com' where id = ?`, [team.id]);
  const app = await createApp(t, owner.key, completeApp({ teamId: team.id, name: 'Fjord Review Me' }));
  expect((await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: owner.key })).status).toBe(200);
  const client = await signedIn(t, await createAdminAccount(t, 'reviewer'));
  const page = await client.get(`/admin/review/apps/${app.id}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('Published by the team');
  expect(page.text).toContain('fjord.example.com');
  expect(page.text).toContain('Fjord Planner');
});
