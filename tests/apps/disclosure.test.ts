import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { decideRevision } from '../../src/modules/apps/revisions.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { loadConfig } from '../../src/config.ts';
import { appRow, completeApp, createApp, deps, registerClient } from './fixtures.ts';

/**
 * Data access disclosure: declared scopes (checked against `PLATFORM_SCOPES`) and data handling,
 * required to submit an app with an OAuth client, shown to the owner and the public (not in list
 * summaries), and a revision's new scopes public only once approved.
 */
let t: TestApp;
let developer: TestDeveloper;
let key: string;

const DATA_HANDLING = {
  storesUserData: true,
  locations: ['EU', 'US'],
  thirdParties: [{ name: 'Mailgun', purpose: 'Sends the reminder e-mails' }],
  retentionDays: 30,
};
// Out of the platform's order on purpose: views list scopes in the configured order.
const PERMISSIONS = [
  { scope: 'comments:write', reason: 'Posts the time spent as a comment' },
  { scope: 'tasks:read', reason: 'Shows which task a timer belongs to' },
];

beforeAll(async () => {
  t = await createTestApp();
  developer = await registerDeveloper(t);
  key = await mintKey(t, developer);
  await registerClient(t, developer.id, 'timer-web');
}, 60_000);
afterAll(() => t?.close(), 30_000);

const errorsOf = (body: { errors: { path: string; message: string }[] }) => Object.fromEntries(body.errors.map((e) => [e.path, e.message]));

async function approve(id: string) {
  const submitted = await t.call('POST', `/api/dev/apps/${id}/submit`, { token: key });
  expect(submitted.status).toBe(200);
  return decideApp(deps(t), id, 'approve', { actor: CLI_ACTOR, version: submitted.body.version });
}

describe('validation: 400 naming the field and what is allowed, nothing changed', () => {
  test.each([
    [
      'an unknown scope',
      { permissions: [{ scope: 'billing:write', reason: 'Charges cards' }] },
      'permissions[0].scope',
      /"billing:write" is not a platform scope; allowed: tasks:read, tasks:write, .*webhooks:write/,
    ],
    [
      'a repeated scope',
      {
        permissions: [
          { scope: 'tasks:read', reason: 'One' },
          { scope: 'tasks:read', reason: 'Two' },
        ],
      },
      'permissions[1].scope',
      /listed more than once/,
    ],
    ['an empty reason', { permissions: [{ scope: 'tasks:read', reason: '' }] }, 'permissions[0].reason', /1 to 200 characters/],
    ['a malformed scope', { permissions: [{ scope: 'Tasks Read', reason: 'x' }] }, 'permissions[0].scope', /a platform scope such as tasks:read/],
    [
      'more than 20 third parties',
      { dataHandling: { ...DATA_HANDLING, thirdParties: Array.from({ length: 21 }, (_, i) => ({ name: `Vendor ${i}`, purpose: 'Analytics' })) } },
      'dataHandling.thirdParties',
      /at most 20/,
    ],
    [
      'an unknown location',
      { dataHandling: { ...DATA_HANDLING, locations: ['EU', 'MARS'] } },
      'dataHandling.locations[1]',
      /one of EU, US, UK, CA, AU, JP, IN, BR, OTHER/,
    ],
    ['a fractional retention', { dataHandling: { ...DATA_HANDLING, retentionDays: 1.5 } }, 'dataHandling.retentionDays', /whole number/],
  ])('%s', async (_what, body, path, message) => {
    const created = await t.call('POST', '/api/dev/apps', { token: key, body: completeApp(body) });
    expect(created.status).toBe(400);
    expect(created.body.code).toBe('VALIDATION_FAILED');
    expect(errorsOf(created.body)[path]).toMatch(message);

    const app = await createApp(t, key);
    const before = await appRow(t, app.id);
    const put = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body });
    expect(put.status).toBe(400);
    expect(errorsOf(put.body)[path]).toMatch(message);
    expect(await appRow(t, app.id)).toEqual(before);
  });

  test('PLATFORM_SCOPES decides which scopes exist and their labels; a bad entry stops the start', () => {
    const config = loadConfig({ APP_ENV: 'test', PLATFORM_SCOPES: 'tasks:read, boards:admin=Manage your boards' });
    expect(config.platformScopes).toEqual([
      { scope: 'tasks:read', label: 'See your tasks' },
      { scope: 'boards:admin', label: 'Manage your boards' },
    ]);
    expect(() => loadConfig({ APP_ENV: 'test', PLATFORM_SCOPES: 'boards:admin' })).toThrow(/needs a label/);
    expect(() => loadConfig({ APP_ENV: 'test', PLATFORM_SCOPES: 'tasks:read,tasks:read' })).toThrow(/twice/);
  });
});

describe('owner views', () => {
  test('scopes come back in the platform order with their labels; PUT null clears', async () => {
    const app = await createApp(t, key, completeApp({ permissions: PERMISSIONS, dataHandling: DATA_HANDLING }));
    expect(app.permissions).toEqual([
      { scope: 'tasks:read', label: 'See your tasks', reason: 'Shows which task a timer belongs to' },
      { scope: 'comments:write', label: 'Post and edit comments', reason: 'Posts the time spent as a comment' },
    ]);
    expect(app.dataHandling).toEqual(DATA_HANDLING);
    expect((await t.call('GET', `/api/dev/apps/${app.id}`, { token: key })).body.permissions).toEqual(app.permissions);
    const cleared = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { permissions: null, dataHandling: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.permissions).toBeNull();
    expect(cleared.body.dataHandling).toBeNull();
  });
});

describe('submitting an app with an OAuth client', () => {
  test('needs both: preflight says so, submit is 400 SUBMISSION_INCOMPLETE naming them; declared, it goes through', async () => {
    const app = await createApp(t, key, completeApp({ oauthClientId: 'timer-web' }));
    const preflight = await t.call('POST', `/api/dev/apps/${app.id}/preflight`, { token: key });
    expect(preflight.body.ready).toBe(false);
    expect(preflight.body.errors.map((e: { path: string }) => e.path)).toEqual(['permissions', 'dataHandling']);

    const refused = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('SUBMISSION_INCOMPLETE');
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(['permissions', 'dataHandling']);
    expect((await appRow(t, app.id)).status).toBe('DRAFT');

    await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { permissions: PERMISSIONS } });
    const half = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    expect(half.body.errors.map((e: { path: string }) => e.path)).toEqual(['dataHandling']);

    await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { dataHandling: DATA_HANDLING } });
    expect((await t.call('POST', `/api/dev/apps/${app.id}/preflight`, { token: key })).body).toMatchObject({ ready: true, errors: [] });
    const submitted = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    expect(submitted.status).toBe(200);
    // In review it stays declared.
    const stripped = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { permissions: null } });
    expect(stripped.status).toBe(400);
    expect(stripped.body.code).toBe('SUBMISSION_INCOMPLETE');
  });

  test('an app without an OAuth client needs neither', async () => {
    const app = await createApp(t, key);
    expect((await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key })).status).toBe(200);
  });
});

describe('public views', () => {
  test('the detail view has the disclosure; list summaries leave it out', async () => {
    const app = await createApp(
      t,
      key,
      completeApp({ name: 'Disclosed Timer', oauthClientId: 'timer-web', permissions: PERMISSIONS, dataHandling: DATA_HANDLING }),
    );
    await approve(app.id);
    const detail = await t.call('GET', `/api/apps/${app.slug}`);
    expect(detail.status).toBe(200);
    expect(detail.body.permissions.map((p: { scope: string; label: string }) => [p.scope, p.label])).toEqual([
      ['tasks:read', 'See your tasks'],
      ['comments:write', 'Post and edit comments'],
    ]);
    expect(detail.body.dataHandling).toEqual(DATA_HANDLING);

    const list = await t.call('GET', `/api/apps?search=${encodeURIComponent('Disclosed Timer')}`);
    const summary = list.body.data.find((entry: { id: string }) => entry.id === app.id);
    expect(summary).toBeDefined();
    expect(summary).not.toHaveProperty('permissions');
    expect(summary).not.toHaveProperty('dataHandling');
    const plain = await t.call('GET', '/api/apps?limit=100');
    for (const entry of plain.body.data) {
      expect(entry).not.toHaveProperty('permissions');
      expect(entry).not.toHaveProperty('dataHandling');
    }
  });
});

describe('a revision that adds a scope', () => {
  test('carries addedPermissions, keeps the public listing as it was, and approval makes the scope public', async () => {
    const app = await createApp(t, key, completeApp({ oauthClientId: 'timer-web', permissions: [PERMISSIONS[1]], dataHandling: DATA_HANDLING }));
    await approve(app.id);
    const proposed = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, {
      token: key,
      body: { permissions: [...PERMISSIONS, { scope: 'files:write', reason: 'Attaches the timesheet' }] },
    });
    expect(proposed.status).toBe(201);
    expect(proposed.body.pendingRevision.addedPermissions).toEqual([
      { scope: 'comments:write', label: 'Post and edit comments', reason: 'Posts the time spent as a comment' },
      { scope: 'files:write', label: 'Attach, change and delete files', reason: 'Attaches the timesheet' },
    ]);
    expect((await t.call('GET', `/api/apps/${app.slug}`)).body.permissions.map((p: { scope: string }) => p.scope)).toEqual(['tasks:read']);

    // Another proposal merges in; a revision that drops scopes adds none.
    const merged = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { description: 'Now with timesheets.' } });
    expect(merged.body.pendingRevision.addedPermissions.map((p: { scope: string }) => p.scope)).toEqual(['comments:write', 'files:write']);

    const refusedRevision = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, {
      token: key,
      body: { permissions: [{ scope: 'nope:x', reason: 'x' }] },
    });
    expect(refusedRevision.status).toBe(400);

    await decideRevision(deps(t), app.id, 'approve', { actor: CLI_ACTOR, version: merged.body.pendingRevision.version });
    const after = (await t.call('GET', `/api/apps/${app.slug}`)).body;
    expect(after.permissions.map((p: { scope: string }) => p.scope)).toEqual(['tasks:read', 'comments:write', 'files:write']);

    const shrink = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { permissions: [PERMISSIONS[1]] } });
    expect(shrink.body.pendingRevision.addedPermissions).toEqual([]);
  });

  test('a revision cannot strip the disclosure of an app with an OAuth client', async () => {
    const app = await createApp(t, key, completeApp({ oauthClientId: 'timer-web', permissions: PERMISSIONS, dataHandling: DATA_HANDLING }));
    await approve(app.id);
    const refused = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { dataHandling: null } });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('SUBMISSION_INCOMPLETE');
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(['dataHandling']);
  });
});
