import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { appRow, createApp, deps, refusal } from './fixtures.ts';

/**
 * A listing in review, one being approved and a live one stay complete (logo, 2–6 screenshots):
 * the gate at submit cannot be walked around by editing after it.
 */
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  key = await mintKey(t, await registerDeveloper(t));
});
afterAll(() => t.close());

async function pendingApp() {
  const app = await createApp(t, key);
  const submitted = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
  expect(submitted.status).toBe(200);
  return submitted.body;
}

describe('the submit gate holds after submission', () => {
  test.each([
    ['logo and screenshots cleared', { logoUrl: null, screenshots: [] }, ['logoUrl', 'screenshots']],
    ['logo cleared', { logoUrl: null }, ['logoUrl']],
    ['one screenshot left', { screenshots: [{ url: 'https://cdn.example.com/one.png' }] }, ['screenshots']],
  ])('editing a PENDING app with %s is 400 SUBMISSION_INCOMPLETE and changes nothing', async (_what, body, paths) => {
    const app = await pendingApp();
    const before = await appRow(t, app.id);
    const response = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('SUBMISSION_INCOMPLETE');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual(paths);
    expect(await appRow(t, app.id)).toEqual(before);
  });

  test('a complete edit of a PENDING app is fine and keeps it PENDING', async () => {
    const app = await pendingApp();
    const response = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { logoUrl: 'https://cdn.example.com/new-logo.png' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'PENDING', version: app.version + 1 });
  });

  test('a draft may still be incomplete', async () => {
    const app = await createApp(t, key);
    const response = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { logoUrl: null, screenshots: [] } });
    expect(response.status).toBe(200);
  });

  test('approval refuses an incomplete listing, however it got that way', async () => {
    const app = await pendingApp();
    // A listing that lost its assets behind the API's back (an old row, a manual fix).
    await t.sql(`update apps set logo_url = null, screenshots = '[]' where id = ?`, [app.id]);
    expect(await refusal(decideApp(deps(t), app.id, 'approve', { actor: CLI_ACTOR }))).toMatchObject({
      status: 400,
      code: 'SUBMISSION_INCOMPLETE',
    });
    expect((await appRow(t, app.id)).status).toBe('PENDING');
    expect((await t.call('GET', `/api/apps/${app.slug}`)).status).toBe(404);
  });
});
