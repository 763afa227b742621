import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { decideApp, setFeatured } from '../../src/modules/apps/app-admin.service.ts';
import { createApp as createAppService } from '../../src/modules/apps/apps.service.ts';
import { submitApp } from '../../src/modules/apps/submission.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { CLI_ACTOR, type Actor } from '../../src/modules/audit/audit.service.ts';
import { appRow, approvedApp, completeApp, createApp, deps, minimalApp, refusal } from './fixtures.ts';
import { eventually } from '../support/eventually.ts';

let t: TestApp;
let dev: TestDeveloper;
let key: string;
const reviewer: Actor = { label: 'admin:reviewer-1' };

beforeAll(async () => {
  t = await createTestApp();
  dev = await registerDeveloper(t);
  key = await mintKey(t, dev);
}, 30_000);
afterAll(() => t.close());

const submit = (id: string) => t.call('POST', `/api/dev/apps/${id}/submit`, { token: key });
const transitions = (id: string) =>
  t.sql('select actor, action, from_status, to_status, version, reason from app_transitions where app_id = ? order by created_at, id', [id]);

describe('the whole lifecycle over HTTP', () => {
  test('create → preflight → submit → edit while PENDING → stale decision refused → approve → locked → suspend → relist', async () => {
    // An incomplete draft: preflight lists what is missing, submit refuses with the same list.
    const app = await createApp(t, key, minimalApp({ screenshots: [{ url: 'https://cdn.example.com/only.png' }] }));
    const preflightDraft = await t.call('POST', `/api/dev/apps/${app.id}/preflight`, { token: key });
    expect(preflightDraft.status).toBe(200);
    expect(preflightDraft.body.ready).toBe(false);
    expect(preflightDraft.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['logoUrl', 'screenshots']);

    const before = await appRow(t, app.id);
    const incomplete = await submit(app.id);
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.code).toBe('SUBMISSION_INCOMPLETE');
    expect(incomplete.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['logoUrl', 'screenshots']);
    expect(await appRow(t, app.id)).toEqual(before);

    // Completed, it is ready; preflight changed nothing.
    const completed = await t.call('PUT', `/api/dev/apps/${app.id}`, {
      token: key,
      body: {
        logoUrl: 'https://cdn.example.com/logo.png',
        screenshots: [{ url: 'https://cdn.example.com/1.png' }, { url: 'https://cdn.example.com/2.png' }],
      },
    });
    expect(completed.body.version).toBe(2);
    const ready = await t.call('POST', `/api/dev/apps/${app.id}/preflight`, { token: key });
    expect(ready.body).toMatchObject({ ready: true, errors: [] });
    expect(ready.body.warnings).toBeArray(); // the asset checks of example.com images: tests/apps/warnings.test.ts
    expect((await appRow(t, app.id)).status).toBe('DRAFT');

    const submitted = await submit(app.id);
    expect(submitted.status).toBe(200);
    expect(submitted.body.status).toBe('PENDING');
    // A submission is a new thing to review: it moves the version.
    expect(submitted.body.version).toBe(3);
    expect(submitted.body.submittedAt).not.toBeNull();

    // Editing a PENDING app keeps it PENDING and keeps its place in the queue, but bumps the version.
    const edited = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { description: 'Better words.' } });
    expect(edited.status).toBe(200);
    expect(edited.body.status).toBe('PENDING');
    expect(edited.body.submittedAt).toBe(submitted.body.submittedAt);
    expect(edited.body.version).toBe(4);

    // The reviewer saw version 3: the decision is stale and changes nothing.
    const beforeStale = await appRow(t, app.id);
    expect(await refusal(decideApp(deps(t), app.id, 'approve', { actor: reviewer, version: 3 }))).toMatchObject({
      status: 409,
      code: 'STALE_VERSION',
    });
    expect(await appRow(t, app.id)).toEqual(beforeStale);

    const approved = await decideApp(deps(t), app.slug, 'approve', { actor: reviewer, version: 4 });
    expect(approved.status).toBe('APPROVED');
    expect(approved.reviewedAt).not.toBeNull();
    expect(approved.version).toBe(4);
    const approvedRow = await appRow(t, app.id);
    expect(approvedRow.first_approved_at).not.toBeNull();

    // Approved: no PUT, no DELETE, no resubmission; nothing changes.
    const put = await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { name: 'Sneaky' } });
    expect(put.status).toBe(409);
    expect(put.body.code).toBe('APP_NOT_EDITABLE');
    const del = await t.call('DELETE', `/api/dev/apps/${app.id}`, { token: key });
    expect(del.status).toBe(409);
    expect(del.body.code).toBe('APP_NOT_EDITABLE');
    const resubmit = await submit(app.id);
    expect(resubmit.status).toBe(409);
    expect(resubmit.body.code).toBe('INVALID_STATE_TRANSITION');
    expect(await appRow(t, app.id)).toEqual(approvedRow);
    const notReady = await t.call('POST', `/api/dev/apps/${app.id}/preflight`, { token: key });
    expect(notReady.body.ready).toBe(false);
    expect(notReady.body.errors).toEqual([{ path: 'status', message: 'an app that is APPROVED cannot be submitted' }]);

    // Suspended: still not editable or deletable.
    const suspended = await decideApp(deps(t), app.id, 'suspend', { actor: reviewer, reason: 'Broken OAuth flow' });
    expect(suspended.status).toBe('SUSPENDED');
    const suspendedRow = await appRow(t, app.id);
    for (const [method, body] of [
      ['PUT', { description: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const response = await t.call(method, `/api/dev/apps/${app.id}`, { token: key, body });
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('APP_NOT_EDITABLE');
    }
    expect(await appRow(t, app.id)).toEqual(suspendedRow);

    const relisted = await decideApp(deps(t), app.id, 'relist', { actor: reviewer });
    expect(relisted.status).toBe('APPROVED');
    // Relisting does not reset the first approval.
    expect((await appRow(t, app.id)).first_approved_at).toEqual(approvedRow.first_approved_at);

    expect(await transitions(app.id)).toEqual([
      { actor: `developer:${dev.id}`, action: 'submit', from_status: 'DRAFT', to_status: 'PENDING', version: 3, reason: null },
      { actor: 'admin:reviewer-1', action: 'approve', from_status: 'PENDING', to_status: 'APPROVED', version: 4, reason: null },
      { actor: 'admin:reviewer-1', action: 'suspend', from_status: 'APPROVED', to_status: 'SUSPENDED', version: 4, reason: 'Broken OAuth flow' },
      { actor: 'admin:reviewer-1', action: 'relist', from_status: 'SUSPENDED', to_status: 'APPROVED', version: 4, reason: null },
    ]);
    const audit = await t.sql(`select actor, action, reason from audit_log where subject_id = ? order by created_at, id`, [app.id]);
    expect(audit).toEqual([
      { actor: 'admin:reviewer-1', action: 'app.approve', reason: null },
      { actor: 'admin:reviewer-1', action: 'app.suspend', reason: 'Broken OAuth flow' },
      { actor: 'admin:reviewer-1', action: 'app.relist', reason: null },
    ]);
  });
});

describe('rejection and resubmission', () => {
  test('reject needs a reason; a REJECTED app can be edited and resubmitted, which clears the reason', async () => {
    const app = await createApp(t, key);
    const pending = await submit(app.id);
    const pendingRow = await appRow(t, app.id);
    for (const reason of [undefined, '', '   ']) {
      expect(await refusal(decideApp(deps(t), app.id, 'reject', { actor: reviewer, reason }))).toMatchObject({
        status: 400,
        code: 'VALIDATION_FAILED',
      });
    }
    expect(await appRow(t, app.id)).toEqual(pendingRow);

    const rejected = await decideApp(deps(t), app.id, 'reject', {
      actor: reviewer,
      version: pending.body.version,
      reason: 'The screenshots show another product.',
    });
    expect(rejected.status).toBe('REJECTED');
    expect(rejected.rejectionReason).toBe('The screenshots show another product.');
    expect(rejected.reviewedAt).not.toBeNull();
    expect((await appRow(t, app.id)).first_approved_at).toBeNull();

    const edited = await t.call('PUT', `/api/dev/apps/${app.id}`, {
      token: key,
      body: { screenshots: [{ url: 'https://cdn.example.com/real-1.png' }, { url: 'https://cdn.example.com/real-2.png' }] },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.status).toBe('REJECTED');
    expect(edited.body.rejectionReason).toBe('The screenshots show another product.');

    const resubmitted = await submit(app.id);
    expect(resubmitted.status).toBe(200);
    expect(resubmitted.body.status).toBe('PENDING');
    expect(resubmitted.body.rejectionReason).toBeNull();
    expect(new Date(resubmitted.body.submittedAt).getTime()).toBeGreaterThanOrEqual(new Date(pending.body.submittedAt).getTime());
    expect((await transitions(app.id)).map((row) => `${row.from_status}>${row.to_status}`)).toEqual([
      'DRAFT>PENDING',
      'PENDING>REJECTED',
      'REJECTED>PENDING',
    ]);
  });

  test('every submission moves the version: a decision on the rejected submission cannot approve a resubmission nobody reviewed', async () => {
    const app = await createApp(t, key);
    const first = await submit(app.id);
    expect(first.body.version).toBe(app.version + 1);
    await decideApp(deps(t), app.id, 'reject', { actor: reviewer, version: first.body.version, reason: 'The screenshots are blurry.' });
    // Resubmitted without an edit: the same listing, but a new submission a reviewer must look at.
    const again = await submit(app.id);
    expect(again.body.version).toBe(first.body.version + 1);
    const before = await appRow(t, app.id);
    for (const action of ['approve', 'reject'] as const) {
      expect(await refusal(decideApp(deps(t), app.id, action, { actor: reviewer, version: first.body.version, reason: 'Stale.' }))).toMatchObject({
        status: 409,
        code: 'STALE_VERSION',
      });
    }
    expect(await appRow(t, app.id)).toEqual(before);
    expect((await decideApp(deps(t), app.id, 'approve', { actor: reviewer, version: again.body.version })).status).toBe('APPROVED');
  });

  test('a REJECTED app can be deleted', async () => {
    const app = await createApp(t, key);
    await submit(app.id);
    await decideApp(deps(t), app.id, 'reject', { actor: reviewer, reason: 'No.' });
    const deleted = await t.call('DELETE', `/api/dev/apps/${app.id}`, { token: key });
    expect(deleted.status).toBe(200);
    expect(deleted.body.status).toBe('REJECTED');
  });
});

describe('invalid transitions', () => {
  test('admin actions outside the transition table are 409 INVALID_STATE_TRANSITION and change nothing', async () => {
    const draft = await createApp(t, key);
    const draftRow = await appRow(t, draft.id);
    for (const action of ['approve', 'reject', 'suspend', 'relist'] as const) {
      expect(await refusal(decideApp(deps(t), draft.id, action, { actor: reviewer, reason: 'r' }))).toMatchObject({
        status: 409,
        code: 'INVALID_STATE_TRANSITION',
      });
    }
    expect(await refusal(setFeatured(deps(t), draft.id, true, reviewer))).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION' });
    expect(await appRow(t, draft.id)).toEqual(draftRow);

    await submit(draft.id);
    const twice = await submit(draft.id);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('INVALID_STATE_TRANSITION');
    expect(await transitions(draft.id)).toHaveLength(1);
  });

  test('an unknown app reference is 404', async () => {
    expect(await refusal(decideApp(deps(t), 'no-such-slug', 'approve', { actor: reviewer }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(await refusal(decideApp(deps(t), crypto.randomUUID(), 'approve', { actor: reviewer }))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });
});

describe('featuring', () => {
  test('only APPROVED apps can be featured; featuring is recorded and can be turned off in any state', async () => {
    const app = await approvedApp(t, key);
    const featured = await setFeatured(deps(t), app.slug, true, reviewer);
    expect(featured.featured).toBe(true);
    const again = await setFeatured(deps(t), app.slug, true, reviewer);
    expect(again.featured).toBe(true);
    await decideApp(deps(t), app.id, 'suspend', { actor: reviewer });
    const off = await setFeatured(deps(t), app.id, false, reviewer);
    expect(off.featured).toBe(false);
    expect(await refusal(setFeatured(deps(t), app.id, true, reviewer))).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION' });
    expect((await transitions(app.id)).map((row) => row.action)).toEqual(['submit', 'approve', 'feature', 'suspend', 'unfeature']);
    const audit = await t.sql(`select action, before, after from audit_log where subject_id = ? and action like 'app.%feature' order by created_at`, [
      app.id,
    ]);
    expect(audit).toEqual([
      { action: 'app.feature', before: { featured: false }, after: { featured: true } },
      { action: 'app.unfeature', before: { featured: true }, after: { featured: false } },
    ]);
  });
});

describe('public visibility changes recount the categories', () => {
  const count = async (category: string) =>
    (await t.sql<{ app_count: number }>('select app_count from category_counts where category = ?', [category]))[0]!.app_count;

  test('approve, suspend and relist an app; suspend and reinstate its developer', async () => {
    const owner = await registerDeveloper(t);
    const ownerKey = await mintKey(t, owner);
    const app = await approvedApp(t, ownerKey, completeApp({ category: 'FINANCE' }));
    await eventually(async () => (await count('FINANCE')) === 1);

    await decideApp(deps(t), app.id, 'suspend', { actor: reviewer });
    await eventually(async () => (await count('FINANCE')) === 0);
    await decideApp(deps(t), app.id, 'relist', { actor: reviewer });
    await eventually(async () => (await count('FINANCE')) === 1);

    await transitionDeveloper(deps(t), owner.id, 'suspend', reviewer);
    await eventually(async () => (await count('FINANCE')) === 0);
    await transitionDeveloper(deps(t), owner.id, 'reinstate', reviewer);
    await eventually(async () => (await count('FINANCE')) === 1);
  }, 30_000);
});

describe('developer verification on submit', () => {
  // Over HTTP this refusal cannot be reached: keys exist only for VERIFIED developers, and a
  // suspended developer's keys are 401. The rule is still the service's, so it is tested there.
  test('a suspended developer’s key is 401 over HTTP', async () => {
    const owner = await registerDeveloper(t);
    const ownerKey = await mintKey(t, owner);
    const app = await createApp(t, ownerKey);
    await transitionDeveloper(deps(t), owner.id, 'suspend', CLI_ACTOR);
    const response = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: ownerKey });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('UNAUTHENTICATED');
    expect((await appRow(t, app.id)).status).toBe('DRAFT');
  });

  test('submitApp refuses an unverified developer (403 DEVELOPER_NOT_VERIFIED) and a suspended one (403 DEVELOPER_SUSPENDED)', async () => {
    const unverified = await registerDeveloper(t, { verified: false });
    const app = await createAppService({ ...deps(t), maxApps: 100 }, { developerId: unverified.id, keyTeamId: null }, completeApp() as never);
    expect(await refusal(submitApp(deps(t), { developerId: unverified.id, keyTeamId: null }, app.id))).toMatchObject({
      status: 403,
      code: 'DEVELOPER_NOT_VERIFIED',
    });
    expect((await appRow(t, app.id)).status).toBe('DRAFT');

    await transitionDeveloper(deps(t), unverified.id, 'verify', CLI_ACTOR);
    await transitionDeveloper(deps(t), unverified.id, 'suspend', CLI_ACTOR);
    expect(await refusal(submitApp(deps(t), { developerId: unverified.id, keyTeamId: null }, app.id))).toMatchObject({
      status: 403,
      code: 'DEVELOPER_SUSPENDED',
    });
    expect((await appRow(t, app.id)).status).toBe('DRAFT');
    expect(await transitions(app.id)).toEqual([]);
  });
});
