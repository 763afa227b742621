import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper, type FixtureApp } from '../support/fixtures.ts';
import { eventually } from '../support/eventually.ts';

let t: TestApp;
let app: FixtureApp;
let draft: FixtureApp;
let suspended: FixtureApp;

beforeAll(async () => {
  t = await createTestApp();
  const developer = await insertDeveloper(t);
  app = await insertApp(t, { developerId: developer, name: 'Install Target' });
  draft = await insertApp(t, { developerId: developer, status: 'DRAFT' });
  suspended = await insertApp(t, { developerId: developer, status: 'SUSPENDED' });
});
afterAll(() => t.close());

const installRows = (appId: string) =>
  t.sql<{ installer: string; platform_user_id: string | null; installed_at: Date }>(
    'select installer, platform_user_id, installed_at from installs where app_id = ? order by id',
    [appId],
  );
const today = () => new Date().toISOString().slice(0, 10);

/** A fresh public app per test, so each counts from zero. */
async function freshApp(): Promise<FixtureApp> {
  const [row] = await t.sql<{ developer_id: string }>('select developer_id from apps where id = ?', [app.id]);
  return insertApp(t, { developerId: row!.developer_id });
}

describe('POST /api/apps/:slug/install', () => {
  test('an anonymous install with no body: 201 {slug, installedAt}, counted per address and UTC day', async () => {
    const target = await freshApp();
    const response = await t.call('POST', `/api/apps/${target.slug}/install`);
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['installedAt', 'slug']);
    expect(response.body.slug).toBe(target.slug);
    expect(new Date(response.body.installedAt).toISOString()).toBe(response.body.installedAt);
    const rows = await installRows(target.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.installer).toBe(`address:127.0.0.1:${today()}`);
    expect(rows[0]!.platform_user_id).toBeNull();
  });

  test('the same address on the same day counts once; a repeat answers with the first install time', async () => {
    const target = await freshApp();
    const first = await t.call('POST', `/api/apps/${target.slug}/install`);
    const again = await t.call('POST', `/api/apps/${target.slug}/install`, { body: {} });
    expect(again.status).toBe(201);
    expect(again.body.installedAt).toBe(first.body.installedAt);
    expect(await installRows(target.id)).toHaveLength(1);
  });

  test('X-Forwarded-For is ignored without TRUSTED_PROXIES: a client cannot pick its own address', async () => {
    const target = await freshApp();
    for (const forwarded of ['203.0.113.7', '198.51.100.1', '198.51.100.2, 203.0.113.9']) {
      const response = await t.call('POST', `/api/apps/${target.slug}/install`, { headers: { 'x-forwarded-for': forwarded } });
      expect(response.status).toBe(201);
    }
    const rows = await installRows(target.id);
    expect(rows.map((row) => row.installer)).toEqual([`address:127.0.0.1:${today()}`]);
  });

  test('the same installationId twice counts once; another one counts again', async () => {
    const target = await freshApp();
    const first = await t.call('POST', `/api/apps/${target.slug}/install`, { body: { installationId: 'workspace-1' } });
    const again = await t.call('POST', `/api/apps/${target.slug}/install`, { body: { installationId: 'workspace-1' } });
    const other = await t.call('POST', `/api/apps/${target.slug}/install`, { body: { installationId: 'workspace-2' } });
    expect([first.status, again.status, other.status]).toEqual([201, 201, 201]);
    expect(again.body.installedAt).toBe(first.body.installedAt);
    expect((await installRows(target.id)).map((row) => row.installer)).toEqual(['installation:workspace-1', 'installation:workspace-2']);
  });

  test('the same platform user twice counts once, whatever installationId they send; the user is stored', async () => {
    const target = await freshApp();
    const token = await t.token('installer-user-1');
    const first = await t.call('POST', `/api/apps/${target.slug}/install`, { token });
    const again = await t.call('POST', `/api/apps/${target.slug}/install`, { token, body: { installationId: 'workspace-9' } });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.installedAt).toBe(first.body.installedAt);
    const rows = await installRows(target.id);
    expect(rows.map((row) => [row.installer, row.platform_user_id])).toEqual([['user:installer-user-1', 'installer-user-1']]);
  });

  test('installers of different kinds count separately', async () => {
    const target = await freshApp();
    await t.call('POST', `/api/apps/${target.slug}/install`, { token: await t.token('kind-user') });
    await t.call('POST', `/api/apps/${target.slug}/install`, { body: { installationId: 'kind-installation' } });
    await t.call('POST', `/api/apps/${target.slug}/install`);
    expect(await installRows(target.id)).toHaveLength(3);
  });

  test('installCount reflects a new install within 5 s', async () => {
    const target = await freshApp();
    await t.call('POST', `/api/apps/${target.slug}/install`, { body: { installationId: 'a' } });
    await t.call('POST', `/api/apps/${target.slug}/install`, { body: { installationId: 'b' } });
    await t.call('POST', `/api/apps/${target.slug}/install`, { body: { installationId: 'a' } });
    const view = await eventually(async () => {
      const response = await t.call('GET', `/api/apps/${target.slug}`);
      return response.body.installCount === 2 && response.body;
    });
    expect(view.installCount).toBe(2);
  });

  describe('refusals change nothing', () => {
    const refused = async (slug: string, options: Parameters<TestApp['call']>[2], status: number, code: string) => {
      const before = (await t.sql('select count(*)::int as n from installs'))[0].n;
      const response = await t.call('POST', `/api/apps/${slug}/install`, options);
      expect(response.status).toBe(status);
      expect(response.body.code).toBe(code);
      expect((await t.sql('select count(*)::int as n from installs'))[0].n).toBe(before);
      return response;
    };

    test('an invalid platform token is 401 (not an anonymous install)', async () => {
      const response = await refused(app.slug, { token: 'not-a-token' }, 401, 'UNAUTHENTICATED');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    });

    test('a token of a third-party client is 401', async () => {
      await refused(app.slug, { token: await t.token('someone', { clientId: 'third-party-app' }) }, 401, 'UNAUTHENTICATED');
    });

    test('an API key is 401: installs take the platform token only', async () => {
      const developer = await registerDeveloper(t);
      await refused(app.slug, { token: await mintKey(t, developer) }, 401, 'UNAUTHENTICATED');
    });

    test('an Authorization header that is not a bearer token is 401', async () => {
      await refused(app.slug, { headers: { authorization: 'Basic dXNlcjpwYXNz' } }, 401, 'UNAUTHENTICATED');
    });

    test.each([
      ['an empty installationId', { installationId: '' }],
      ['an installationId with a control character', { installationId: 'work\u0000space' }],
      ['an installationId of 201 characters', { installationId: 'x'.repeat(201) }],
      ['an installationId that is not a string', { installationId: 42 }],
      ['an unknown field', { installationID: 'typo' }],
    ])('%s is 400 VALIDATION_FAILED', async (_what, body) => {
      await refused(app.slug, { body }, 400, 'VALIDATION_FAILED');
    });

    test('malformed JSON is 400', async () => {
      await refused(app.slug, { rawBody: '{"installationId":' }, 400, 'VALIDATION_FAILED');
    });

    test('a draft is 404, an unknown slug is 404, a suspended app is 410', async () => {
      await refused(draft.slug, {}, 404, 'NOT_FOUND');
      await refused('no-such-app', {}, 404, 'NOT_FOUND');
      await refused(suspended.slug, {}, 410, 'APP_UNAVAILABLE');
    });
  });
});
