import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import pg from 'pg';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { approvedApp, completeApp, createApp, deps } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { decideRevision } from '../../src/modules/apps/revisions.service.ts';
import { emitAppEvent } from '../../src/modules/webhooks/webhook-events.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/modules/webhooks/webhooks.model.ts';
import { scanExpiringKeys } from '../../src/modules/api-keys/key-expiry.service.ts';
import { signatureMatches, startReceiver, type Receiver, type ReceivedWebhook } from './receiver.ts';

/**
 * Every event, caused the way users cause it, reaches a receiver on 127.0.0.1 once, signed
 * (checked with an HMAC written here from the specification, not the service's signer), with the
 * app as its owner sees it. Private addresses are allowed only by this test's configuration.
 */
let t: TestApp;
let receiver: Receiver;
let dev: TestDeveloper;
let key: string;
let secret: string;
const reviewer = { label: 'admin:webhook-reviewer' };

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true' });
  receiver = startReceiver();
  dev = await registerDeveloper(t);
  key = await mintKey(t, dev);
  const created = await t.call('POST', '/api/dev/webhooks', {
    token: key,
    body: { url: receiver.url('/all'), events: [...WEBHOOK_EVENT_TYPES], description: 'everything' },
  });
  expect(created.status).toBe(201);
  secret = created.body.secret;
  // Narrower subscriptions, a paused endpoint, and another developer's endpoint.
  expect(
    (await t.call('POST', '/api/dev/webhooks', { token: key, body: { url: receiver.url('/approvals'), events: ['app.approved'] } })).status,
  ).toBe(201);
  expect(
    (await t.call('POST', '/api/dev/webhooks', { token: key, body: { url: receiver.url('/paused'), events: ['app.submitted'], enabled: false } }))
      .status,
  ).toBe(201);
  const other = await registerDeveloper(t);
  expect(
    (await t.call('POST', '/api/dev/webhooks', { token: other.oauthToken, body: { url: receiver.url('/other'), events: [...WEBHOOK_EVENT_TYPES] } }))
      .status,
  ).toBe(201);
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});

/** The one delivery of the next event of `type` about `subjectId` to `/all`, after it arrived. */
async function delivered(type: string, subjectId: string, path = '/all'): Promise<ReceivedWebhook> {
  const matching = () => receiver.at(path).filter((request) => request.json?.type === type && subjectOf(request) === subjectId);
  const [first] = await eventually(async () => matching().length > 0 && matching());
  return first!;
}
const subjectOf = (request: ReceivedWebhook) => request.json.data?.apiKey?.id ?? request.json.data?.id;

function expectSigned(request: ReceivedWebhook, type: string) {
  expect(signatureMatches(secret, request)).toBe(true);
  expect(request.headers['content-type']).toBe('application/json');
  expect(request.headers['webhook-id']).toBe(request.json.id);
  expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
  expect(Object.keys(request.json).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
  expect(request.json.type).toBe(type);
}

/** The app as its owner sees it: the owner-only fields are there. */
function expectOwnerView(data: any, appId: string) {
  expect(data.id).toBe(appId);
  for (const field of ['reviewNotes', 'assetChecks', 'pendingRevision', 'submittedAt', 'rejectionReason', 'version'])
    expect(data).toHaveProperty(field);
}

describe('each event arrives once, signed, with the app as its owner sees it', () => {
  test('app.submitted, app.approved (also to the endpoint subscribed to approvals only)', async () => {
    const app = await createApp(t, key, completeApp({ reviewNotes: 'Log in as demo/demo' }));
    expect((await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key })).status).toBe(200);
    const submitted = await delivered('app.submitted', app.id);
    expectSigned(submitted, 'app.submitted');
    expectOwnerView(submitted.json.data, app.id);
    expect(submitted.json.data).toMatchObject({ status: 'PENDING', reviewNotes: 'Log in as demo/demo' });

    await decideApp(deps(t), app.id, 'approve', { actor: reviewer });
    const approved = await delivered('app.approved', app.id);
    expectSigned(approved, 'app.approved');
    expect(approved.json.data.status).toBe('APPROVED');
    await delivered('app.approved', app.id, '/approvals');
    expect(receiver.at('/approvals').every((request) => request.json.type === 'app.approved')).toBe(true);
  });

  test('app.rejected carries the reasons', async () => {
    const app = await createApp(t, key);
    await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    await decideApp(deps(t), app.id, 'reject', { actor: reviewer, reason: 'Screenshots show another product.\nPlease fix.' });
    const rejected = await delivered('app.rejected', app.id);
    expectSigned(rejected, 'app.rejected');
    expect(rejected.json.data).toMatchObject({
      status: 'REJECTED',
      rejectionReason: 'Screenshots show another product.\nPlease fix.',
      reason: 'Screenshots show another product.\nPlease fix.',
    });
  });

  test('app.suspended and app.relisted', async () => {
    const app = await approvedApp(t, key);
    await decideApp(deps(t), app.id, 'suspend', { actor: reviewer, reason: 'Broken sign-in' });
    const suspended = await delivered('app.suspended', app.id);
    expectSigned(suspended, 'app.suspended');
    expect(suspended.json.data).toMatchObject({ status: 'SUSPENDED', reason: 'Broken sign-in' });
    await decideApp(deps(t), app.id, 'relist', { actor: reviewer });
    const relisted = await delivered('app.relisted', app.id);
    expectSigned(relisted, 'app.relisted');
    expect(relisted.json.data.status).toBe('APPROVED');
  });

  test('revision.approved and revision.rejected carry the revision', async () => {
    const app = await approvedApp(t, key);
    expect((await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { name: 'Renamed By Revision' } })).status).toBe(201);
    await decideRevision(deps(t), app.id, 'approve', { actor: reviewer });
    const approved = await delivered('revision.approved', app.id);
    expectSigned(approved, 'revision.approved');
    expectOwnerView(approved.json.data, app.id);
    expect(approved.json.data).toMatchObject({ name: 'Renamed By Revision', version: app.version + 1 });
    expect(approved.json.data.revision).toMatchObject({ status: 'APPROVED', changes: { name: 'Renamed By Revision' }, rejectionReason: null });

    await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { description: 'Overpromising.' } });
    await decideRevision(deps(t), app.id, 'reject', { actor: reviewer, reason: 'Needs sources.' });
    const rejected = await delivered('revision.rejected', app.id);
    expectSigned(rejected, 'revision.rejected');
    expect(rejected.json.data.description).toBe(app.description);
    expect(rejected.json.data.revision).toMatchObject({ status: 'REJECTED', rejectionReason: 'Needs sources.' });
  });

  test('app.withdrawn and revision.withdrawn: what waited for review, taken back by its developer', async () => {
    const app = await createApp(t, key);
    await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    expect((await t.call('POST', `/api/dev/apps/${app.id}/withdraw`, { token: key })).status).toBe(200);
    const withdrawn = await delivered('app.withdrawn', app.id);
    expectSigned(withdrawn, 'app.withdrawn');
    expectOwnerView(withdrawn.json.data, app.id);
    expect(withdrawn.json.data.status).toBe('DRAFT');

    const live = await approvedApp(t, key);
    await t.call('POST', `/api/dev/apps/${live.id}/revisions`, { token: key, body: { description: 'Second thoughts.' } });
    expect((await t.call('DELETE', `/api/dev/apps/${live.id}/revision`, { token: key })).status).toBe(200);
    const revision = await delivered('revision.withdrawn', live.id);
    expectSigned(revision, 'revision.withdrawn');
    expect(revision.json.data).toMatchObject({ description: live.description, pendingRevision: null });
    expect(revision.json.data.revision).toMatchObject({ status: 'WITHDRAWN', changes: { description: 'Second thoughts.' } });
  });

  test('review.created, review.updated and review.replied carry the review', async () => {
    const app = await approvedApp(t, key);
    const token = await t.token(`webhook-reviewer-${app.id}`);
    expect((await t.call('POST', `/api/apps/${app.slug}/install`, { token })).status).toBe(201);
    const review = await t.call('POST', `/api/apps/${app.slug}/reviews`, { token, body: { rating: 2, title: 'Meh' } });
    expect(review.status).toBe(201);
    const created = await delivered('review.created', app.id);
    expectSigned(created, 'review.created');
    expect(created.json.data.review).toMatchObject({ id: review.body.id, rating: 2, title: 'Meh', hidden: false, reply: null });

    expect((await t.call('POST', `/api/apps/${app.slug}/reviews`, { token, body: { rating: 4 } })).status).toBe(200);
    const updated = await delivered('review.updated', app.id);
    expectSigned(updated, 'review.updated');
    expect(updated.json.data.review).toMatchObject({ id: review.body.id, rating: 4 });

    const reply = await t.call('PUT', `/api/dev/apps/${app.id}/reviews/${review.body.id}/reply`, { token: key, body: { body: 'Thanks!' } });
    expect(reply.status).toBe(201);
    const replied = await delivered('review.replied', app.id);
    expectSigned(replied, 'review.replied');
    expect(replied.json.data.review).toMatchObject({ id: review.body.id, reply: { body: 'Thanks!', repliedAt: reply.body.repliedAt } });
  });

  test('api_key.expiring, once however often the hourly scan runs', async () => {
    const expiring = await mintKey(t, dev, ['APP_READ'], { name: 'CI key' });
    const [{ id }] = await t.sql('select id from api_keys where last4 = ?', [expiring.slice(-4)]);
    await t.sql(`update api_keys set expires_at = now() + interval '3 days' where id = ?`, [id]);
    await scanExpiringKeys({ em: t.ctx.orm.em, jobs: t.ctx.jobs });
    const event = await delivered('api_key.expiring', id);
    expectSigned(event, 'api_key.expiring');
    expect(event.json.data.apiKey).toMatchObject({ id, name: 'CI key', maskedKey: `mk_…${expiring.slice(-4)}` });
    await scanExpiringKeys({ em: t.ctx.orm.em, jobs: t.ctx.jobs });
    // The scan's events are written in its transaction: once it returns, a second one would be there to send.
    const rows = await t.sql(`select d.id from webhook_events e join webhook_deliveries d on d.event_id = e.id where e.dedupe_key = ?`, [
      `api_key.expiring:${id}`,
    ]);
    expect(rows).toHaveLength(1);
    expect(receiver.at('/all').filter((request) => request.json.type === 'api_key.expiring' && subjectOf(request) === id)).toHaveLength(1);
  });

  test("app.edited_by_support: the call the admin console's support edit makes, in its transaction", async () => {
    const app = await approvedApp(t, key);
    await t.ctx.orm.em.fork().transactional(async (tx) => {
      await tx.execute(`update apps set description = 'Edited by support.', version = version + 1 where id = ?`, [app.id]);
      await emitAppEvent(t.ctx.jobs, tx, 'app.edited_by_support', app.id, { changedFields: ['description'] });
    });
    const edited = await delivered('app.edited_by_support', app.id);
    expectSigned(edited, 'app.edited_by_support');
    expectOwnerView(edited.json.data, app.id);
    expect(edited.json.data).toMatchObject({ description: 'Edited by support.', changedFields: ['description'] });
  });
});

describe('what is not delivered', () => {
  test('a rolled-back change emits nothing, and a refused decision neither', async () => {
    const app = await approvedApp(t, key);
    const count = async () => (await t.sql('select (select count(*) from webhook_events) + (select count(*) from webhook_deliveries) as n'))[0].n;
    const before = await count();
    await expect(
      t.ctx.orm.em.fork().transactional(async (tx) => {
        await emitAppEvent(t.ctx.jobs, tx, 'app.edited_by_support', app.id);
        throw new Error('the edit failed');
      }),
    ).rejects.toThrow('the edit failed');
    await expect(decideApp(deps(t), app.id, 'approve', { actor: reviewer })).rejects.toMatchObject({ code: 'INVALID_STATE_TRANSITION' });
    expect(await count()).toBe(before);
  });

  test('an endpoint deleted while a decision is being made is skipped, and the decision stands', async () => {
    const app = await createApp(t, key);
    await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    const doomed = await t.call('POST', '/api/dev/webhooks', { token: key, body: { url: receiver.url('/doomed'), events: ['app.approved'] } });
    const client = new pg.Client({ connectionString: t.runtime.databaseUrl });
    await client.connect();
    try {
      await client.query('begin');
      await client.query('delete from webhook_endpoints where id = $1', [doomed.body.id]);
      const decision = decideApp(deps(t), app.id, 'approve', { actor: reviewer });
      await Bun.sleep(200);
      await client.query('commit');
      expect((await decision).status).toBe('APPROVED');
    } finally {
      await client.end();
    }
    await delivered('app.approved', app.id);
    expect(await t.sql('select 1 from webhook_deliveries where endpoint_id = ?', [doomed.body.id])).toEqual([]);
  });

  test('each event went out once per subscribed endpoint: none twice, none to a paused endpoint or another developer', async () => {
    // Everything above has settled by now; give stragglers a moment.
    await eventually(async () => (await t.sql(`select 1 from webhook_deliveries where status = 'pending'`)).length === 0);
    const ids = receiver.at('/all').map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(receiver.at('/paused')).toEqual([]);
    expect(receiver.at('/other')).toEqual([]);
    const types = new Set(receiver.at('/all').map((request) => request.json.type));
    expect([...types].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const [{ n }] = await t.sql(`select count(*)::int as n from webhook_deliveries where status <> 'succeeded'`);
    expect(n).toBe(0);
  });
});
