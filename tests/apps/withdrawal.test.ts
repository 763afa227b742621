import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp, appRow, createApp, deps, minimalApp } from './fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { createAdmin } from '../../src/modules/admin-accounts/admins.service.ts';
import { claim, claimSubject } from '../../src/modules/listing-review/review-claims.ts';
import { reviewQueuePage } from '../../src/modules/listing-review/review-queue.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

/**
 * A developer takes back what waits for review: the submission (PENDING → DRAFT) or the pending
 * revision. Either leaves the reviewers' queue with any claim on it, and the developer's webhooks
 * hear of it; in any other state nothing changes.
 */
let t: TestApp;
let key: string;
let adminId: string;
let receiver: Receiver;

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true' });
  receiver = startReceiver();
  const dev = await registerDeveloper(t);
  key = await mintKey(t, dev);
  adminId = (await createAdmin(t.ctx.orm.em.fork(), { email: 'withdraw-reviewer@example.com', password: 'correct horse battery', role: 'reviewer' }))
    .id;
  const hook = await t.call('POST', '/api/dev/webhooks', {
    token: key,
    body: { url: receiver.url('/hook'), events: ['app.withdrawn', 'revision.withdrawn'] },
  });
  expect(hook.status).toBe(201);
}, 30_000);
afterAll(async () => {
  await receiver.stop();
  await t.close();
}, 30_000);

const queueIds = async () =>
  (await reviewQueuePage(t.ctx.orm.em.fork(), { q: null, kind: null, flag: null, page: 1, limit: 100, offset: 0 })).data.map((entry) => entry.id);
const claimsOn = (subject: string) => t.sql('select subject from review_claims where subject = ?', [subject]);
const deliveredFor = (type: string, appId: string) =>
  eventually(async () => receiver.at('/hook').find((request) => request.json?.type === type && request.json.data.id === appId));

describe('POST /api/dev/apps/:id/withdraw', () => {
  test('a PENDING app goes back to DRAFT, leaves the queue with its claim, and app.withdrawn is delivered', async () => {
    const app = await createApp(t, key);
    expect((await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key })).status).toBe(200);
    await claim(t.ctx.orm.em.fork(), claimSubject('app', app.id), adminId);
    expect(await queueIds()).toContain(app.id);

    const response = await t.call('POST', `/api/dev/apps/${app.id}/withdraw`, { token: key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: app.id, status: 'DRAFT', submittedAt: null, review: null });
    expect(await queueIds()).not.toContain(app.id);
    expect(await claimsOn(claimSubject('app', app.id))).toEqual([]);
    const [transition] = await t.sql(`select action, from_status, to_status from app_transitions where app_id = ? order by created_at desc limit 1`, [
      app.id,
    ]);
    expect(transition).toEqual({ action: 'withdraw', from_status: 'PENDING', to_status: 'DRAFT' });
    const delivery = await deliveredFor('app.withdrawn', app.id);
    expect(delivery.json.data.status).toBe('DRAFT');

    // Back to a draft: it can be edited and submitted again.
    expect((await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { description: 'Better words.' } })).status).toBe(200);
    expect((await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key })).body.status).toBe('PENDING');
  });

  test('DRAFT, REJECTED and APPROVED apps are refused with 409 INVALID_STATE_TRANSITION and left as they were', async () => {
    const draft = await createApp(t, key, minimalApp());
    const rejected = await createApp(t, key);
    await t.call('POST', `/api/dev/apps/${rejected.id}/submit`, { token: key });
    await decideApp(deps(t), rejected.id, 'reject', { actor: { label: 'admin:test' }, reason: 'Screenshots are blurry' });
    const approved = await approvedApp(t, key);
    for (const app of [draft, rejected, approved]) {
      const before = await appRow(t, app.id);
      const response = await t.call('POST', `/api/dev/apps/${app.id}/withdraw`, { token: key });
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('INVALID_STATE_TRANSITION');
      expect(await appRow(t, app.id)).toEqual(before);
    }
  });

  test("another developer's app is 404, and a key without APP_UPDATE is 403", async () => {
    const app = await createApp(t, key);
    await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    const other = await mintKey(t, await registerDeveloper(t));
    expect((await t.call('POST', `/api/dev/apps/${app.id}/withdraw`, { token: other })).status).toBe(404);
    const readOnly = await mintKey(t, await registerDeveloper(t), ['APP_READ']);
    expect((await t.call('POST', `/api/dev/apps/${app.id}/withdraw`, { token: readOnly })).body.code).toBe('INSUFFICIENT_SCOPE');
    expect((await appRow(t, app.id)).status).toBe('PENDING');
  });
});

describe('DELETE /api/dev/apps/:id/revision', () => {
  test('withdraws the pending revision: the app is returned unchanged, the queue and claim drop it, revision.withdrawn is delivered', async () => {
    const app = await approvedApp(t, key);
    const proposed = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { name: 'Timer Pro' } });
    const revisionId = proposed.body.pendingRevision.id;
    await claim(t.ctx.orm.em.fork(), claimSubject('revision', revisionId), adminId);
    expect(await queueIds()).toContain(revisionId);

    const response = await t.call('DELETE', `/api/dev/apps/${app.id}/revision`, { token: key });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: app.id, name: app.name, status: 'APPROVED', version: app.version, pendingRevision: null });
    expect(await queueIds()).not.toContain(revisionId);
    expect(await claimsOn(claimSubject('revision', revisionId))).toEqual([]);
    expect(await t.sql('select status from app_revisions where id = ?', [revisionId])).toEqual([{ status: 'WITHDRAWN' }]);
    const delivery = await deliveredFor('revision.withdrawn', app.id);
    expect(delivery.json.data.revision).toMatchObject({ id: revisionId, status: 'WITHDRAWN', changes: { name: 'Timer Pro' } });

    // Nothing pending any more: 404; and a new proposal is a new revision, numbered on from the withdrawn one (never repeated).
    const again = await t.call('DELETE', `/api/dev/apps/${app.id}/revision`, { token: key });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('NOT_FOUND');
    const next = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { name: 'Timer Max' } });
    expect(next.body.pendingRevision).toMatchObject({ changes: { name: 'Timer Max' } });
    expect(next.body.pendingRevision.id).not.toBe(revisionId);
    expect(next.body.pendingRevision.version).toBeGreaterThan(delivery.json.data.revision.version);
  });

  test('an app without a pending revision (a draft, an approved app) is 404 and unchanged', async () => {
    for (const app of [await createApp(t, key, minimalApp()), await approvedApp(t, key)]) {
      const before = await appRow(t, app.id);
      const response = await t.call('DELETE', `/api/dev/apps/${app.id}/revision`, { token: key });
      expect(response.status).toBe(404);
      expect(await appRow(t, app.id)).toEqual(before);
    }
  });
});
