import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, runCli, type TestApp } from '../support/harness.ts';
import { buildWorld, type World } from './world.ts';
import { ConsoleClient, createAdminAccount, signedIn, type AdminAccount } from './support.ts';

/** Roles on every route and every button: reviewer < support < owner. */
let t: TestApp;
let world: World;
const accounts: Record<string, AdminAccount> = {};

beforeAll(async () => {
  t = await createTestApp();
  world = await buildWorld(t);
  for (const role of ['reviewer', 'support', 'owner'] as const) accounts[role] = await createAdminAccount(t, role);
});
afterAll(() => t.close());

const appRow = async (id: string) => (await t.sql('select name, description, version from apps where id = ?', [id]))[0];

describe('reviewer', () => {
  test('cannot make a support edit: no form on the page, and a post is 403 and changes nothing', async () => {
    const client = await signedIn(t, accounts.reviewer!);
    const page = await client.get(`/admin/apps/${world.approved.id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Support edit');
    expect(page.text).not.toContain('>Suspend<');
    expect(page.text).toContain('>Feature<'); // reviewers do feature
    const before = await appRow(world.approved.id);
    const post = await client.post(`/admin/apps/${world.approved.id}/edit`, { version: String(before.version), name: 'Renamed by a reviewer' });
    expect(post.status).toBe(403);
    expect(post.text).toContain('Your role (reviewer) cannot do this.');
    expect(await appRow(world.approved.id)).toEqual(before);
  });

  test('cannot reach owner or support pages, nor see their links and buttons', async () => {
    const client = await signedIn(t, accounts.reviewer!);
    const dashboard = await client.get('/admin');
    expect(dashboard.text).not.toContain('href="/admin/admins"');
    expect(dashboard.text).not.toContain('href="/admin/jobs"');
    for (const path of ['/admin/admins', '/admin/jobs', '/admin/jobs/outbox']) expect((await client.get(path)).status).toBe(403);
    expect((await client.post('/admin/admins', { email: 'sneaky@example.com', password: 'a long enough password', role: 'owner' })).status).toBe(403);
    expect(await t.sql(`select 1 from admins where email = 'sneaky@example.com'`)).toEqual([]);
    expect((await client.get('/admin/reviews')).text).not.toContain('>Hide<');
    expect((await client.post(`/admin/reviews/${world.reviewId}/hide`)).status).toBe(403);
    expect((await t.sql('select hidden from reviews where id = ?', [world.reviewId]))[0].hidden).toBe(false);
    expect((await client.get('/admin/oauth-clients')).text).not.toContain('Register client');
  });
});

describe('support', () => {
  test('makes support edits and sees jobs, but cannot reach the owner pages', async () => {
    const client = await signedIn(t, accounts.support!);
    expect((await client.get(`/admin/apps/${world.approved.id}`)).text).toContain('Support edit');
    expect((await client.get('/admin/jobs')).status).toBe(200);
    expect((await client.get('/admin/admins')).status).toBe(403);
    expect((await client.post(`/admin/admins/${accounts.reviewer!.id}/role`, { role: 'owner' })).status).toBe(403);
    expect((await t.sql('select role from admins where id = ?', [accounts.reviewer!.id]))[0].role).toBe('reviewer');
  });
});

describe('owner', () => {
  test('manages admins: creates one, changes a role, and cannot demote the last owner', async () => {
    const client = await signedIn(t, accounts.owner!);
    expect((await client.get('/admin')).text).toContain('href="/admin/admins"');
    const created = await client.post('/admin/admins', { email: 'new-reviewer@example.com', password: 'a long enough password', role: 'reviewer' });
    expect(created.status).toBe(303);
    const [row] = await t.sql(`select id, role from admins where email = 'new-reviewer@example.com'`);
    expect(row.role).toBe('reviewer');
    expect((await client.post(`/admin/admins/${row.id}/role`, { role: 'support' }, { htmx: true })).status).toBe(200);
    expect((await t.sql('select role from admins where id = ?', [row.id]))[0].role).toBe('support');
    const demote = await client.post(`/admin/admins/${accounts.owner!.id}/role`, { role: 'reviewer' }, { htmx: true });
    expect(demote.status).toBe(409);
    expect(demote.text).toContain('The last owner');
    const audit = await t.sql(`select actor, actor_role, before, after from audit_log where action = 'admin.role' and subject_id = ?`, [row.id]);
    expect(audit).toEqual([{ actor: `admin:${accounts.owner!.id}`, actor_role: 'owner', before: { role: 'reviewer' }, after: { role: 'support' } }]);
  });
});

describe('disabling an admin', () => {
  test('an owner disables an admin: their sessions end at once, sign-in is refused, audited; enabled again, they sign in; never oneself', async () => {
    const owner = await signedIn(t, accounts.owner!);
    const target = await createAdminAccount(t, 'support');
    const targetClient = await signedIn(t, target);
    await owner.get('/admin/admins');
    const disabled = await owner.post(`/admin/admins/${target.id}/disable`, { confirmed: 'yes' }, { htmx: true });
    expect(disabled.status).toBe(200);
    expect(disabled.text).toContain('>Disabled<');
    expect((await targetClient.get('/admin')).status).toBe(303);
    expect(await t.sql('select 1 from admin_sessions where admin_id = ?', [target.id])).toEqual([]);
    const refused = await new ConsoleClient(t).signIn(target.email, target.password);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('This account is disabled');
    // A wrong password still looks like any other wrong password.
    expect((await new ConsoleClient(t).signIn(target.email, 'not the password')).status).toBe(401);

    const self = await owner.post(`/admin/admins/${accounts.owner!.id}/disable`, { confirmed: 'yes' }, { htmx: true });
    expect(self.status).toBe(409);
    expect((await t.sql('select disabled_at from admins where id = ?', [accounts.owner!.id]))[0].disabled_at).toBeNull();

    expect((await owner.post(`/admin/admins/${target.id}/enable`, {}, { htmx: true })).status).toBe(200);
    expect((await new ConsoleClient(t).signIn(target.email, target.password)).status).toBe(303);
    const audit = await t.sql(
      `select actor, action from audit_log where subject_id = ? and action in ('admin.disable', 'admin.enable') order by created_at, id`,
      [target.id],
    );
    expect(audit).toEqual([
      { actor: `admin:${accounts.owner!.id}`, action: 'admin.disable' },
      { actor: `admin:${accounts.owner!.id}`, action: 'admin.enable' },
    ]);
  });

  test('bun run cli admin:disable --email E ends their sessions and refuses their sign-in, audited as the CLI', async () => {
    const target = await createAdminAccount(t, 'reviewer');
    const targetClient = await signedIn(t, target);
    const stdout = await runCli(t, ['admin:disable', '--email', target.email.toUpperCase()]);
    expect(stdout).toBe(`disabled admin ${target.email}; their sessions ended`);
    expect((await targetClient.get('/admin')).status).toBe(303);
    expect((await new ConsoleClient(t).signIn(target.email, target.password)).status).toBe(403);
    expect(await t.sql(`select actor from audit_log where subject_id = ? and action = 'admin.disable'`, [target.id])).toEqual([{ actor: 'cli' }]);
  }, 30_000);
});

describe('every console route', () => {
  const open = ['/admin/login', '/admin/login/code', '/admin/login/enrol', '/admin/logout'];

  test('without a session: pages redirect to the sign-in, every post is 403', async () => {
    const routes = t.app.routes.filter((r) => r.path.startsWith('/admin') && !r.path.startsWith('/admin/assets') && !open.includes(r.path));
    expect(routes.length).toBeGreaterThan(30);
    const anonymous = new ConsoleClient(t);
    for (const route of routes) {
      const path = route.path.replace(/:[A-Za-z]+/g, '01a21500-0000-7000-8000-000000000000').replace('*', 'anything');
      const response = await anonymous.request(route.method, path, { form: route.method === 'GET' ? undefined : { _csrf: 'x' } });
      if (route.method === 'GET') {
        expect(response.status, `${route.method} ${route.path}`).toBe(303);
        expect(response.location, `${route.method} ${route.path}`).toStartWith('/admin/login?next=');
      } else {
        expect(response.status, `${route.method} ${route.path}`).toBe(403);
      }
    }
  });
});
