import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { decideRevision } from '../../src/modules/apps/revisions.service.ts';
import type { Actor } from '../../src/modules/audit/audit.service.ts';
import { appRow, approvedApp, assetCheckJobs, assetChecksSettled, completeApp, createApp, deps, registerClient, refusal } from './fixtures.ts';

let t: TestApp;
let dev: TestDeveloper;
let key: string;
const reviewer: Actor = { label: 'admin:reviewer-2' };

beforeAll(async () => {
  t = await createTestApp();
  dev = await registerDeveloper(t);
  key = await mintKey(t, dev);
}, 30_000);
afterAll(() => t.close());

const propose = (id: string, body: object) => t.call('POST', `/api/dev/apps/${id}/revisions`, { token: key, body });

describe('opening a revision', () => {
  test('only APPROVED or SUSPENDED apps take revisions; others are 409 INVALID_STATE_TRANSITION', async () => {
    const draft = await createApp(t, key);
    const response = await propose(draft.id, { name: 'Renamed' });
    expect(response.status).toBe(409);
    expect(response.body.code).toBe('INVALID_STATE_TRANSITION');
    await t.call('POST', `/api/dev/apps/${draft.id}/submit`, { token: key });
    const pending = await propose(draft.id, { name: 'Renamed' });
    expect(pending.status).toBe(409);
    expect(pending.body.code).toBe('INVALID_STATE_TRANSITION');
    expect(await t.sql('select id from app_revisions where app_id = ?', [draft.id])).toEqual([]);

    const approved = await approvedApp(t, key);
    await decideApp(deps(t), approved.id, 'suspend', { actor: reviewer });
    const onSuspended = await propose(approved.id, { description: 'Fixed the OAuth flow.' });
    expect(onSuspended.status).toBe(201);
    expect(onSuspended.body.status).toBe('SUSPENDED');
    expect(onSuspended.body.pendingRevision.changes).toEqual({ description: 'Fixed the OAuth flow.' });
  });

  test('201 with the pending revision shown to the owner; the live listing is unchanged', async () => {
    const app = await approvedApp(t, key, completeApp({ longDescription: 'Old text' }));
    const before = await appRow(t, app.id);
    const response = await propose(app.id, { name: 'Timer Pro', longDescription: '**New** text', websiteUrl: 'https://pro.example.com' });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ id: app.id, name: app.name, longDescription: 'Old text', version: app.version, status: 'APPROVED' });
    expect(response.body.pendingRevision).toMatchObject({
      status: 'PENDING',
      changes: { name: 'Timer Pro', longDescription: '**New** text', websiteUrl: 'https://pro.example.com' },
    });
    // Only the counter of revision versions moved; the live listing (and its updated_at) did not.
    expect(await appRow(t, app.id)).toEqual({ ...before, last_revision_version: 1 });
    const read = await t.call('GET', `/api/dev/apps/${app.id}`, { token: key });
    expect(read.body.pendingRevision.id).toBe(response.body.pendingRevision.id);
    expect(read.body.name).toBe(app.name);
  });

  test('a second proposal merges into the pending one (its fields win) and bumps the version the owner sees', async () => {
    const app = await approvedApp(t, key);
    const first = await propose(app.id, { description: 'First try.', websiteUrl: 'https://first.example.com' });
    expect(first.body.pendingRevision.version).toBe(1);
    const second = await propose(app.id, { description: 'Second try.', category: 'BUSINESS' });
    expect(second.status).toBe(201);
    expect(second.body.pendingRevision.id).toBe(first.body.pendingRevision.id);
    expect(second.body.pendingRevision.version).toBe(2);
    expect(second.body.pendingRevision.changes).toEqual({
      description: 'Second try.',
      websiteUrl: 'https://first.example.com',
      category: 'BUSINESS',
    });
    const rows = await t.sql('select status, version from app_revisions where app_id = ?', [app.id]);
    expect(rows).toEqual([{ status: 'PENDING', version: 2 }]);
  });

  test('a revision may not leave the live listing without its logo or screenshots (400 SUBMISSION_INCOMPLETE)', async () => {
    const app = await approvedApp(t, key);
    for (const body of [{ logoUrl: null }, { screenshots: [] }, { logoUrl: null, screenshots: [] }]) {
      const response = await propose(app.id, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe('SUBMISSION_INCOMPLETE');
    }
    // Nor by merging: a harmless first proposal, then one that strips the screenshots.
    await propose(app.id, { description: 'Harmless.' });
    const stripping = await propose(app.id, { screenshots: [{ url: 'https://cdn.example.com/only-one.png' }] });
    expect(stripping.status).toBe(400);
    expect(stripping.body.errors).toEqual([{ path: 'screenshots', message: expect.stringContaining('2 to 6 screenshots') }]);
    expect(await t.sql('select changes, version from app_revisions where app_id = ?', [app.id])).toEqual([
      { changes: { description: 'Harmless.' }, version: 1 },
    ]);
  });

  test.each([
    ['an empty change set', {}, 'VALIDATION_FAILED'],
    ['environment', { environment: 'staging' }, 'VALIDATION_FAILED'],
    ['a bad URL', { logoUrl: 'javascript:alert(1)' }, 'VALIDATION_FAILED'],
    [
      'more than 6 screenshots',
      { screenshots: Array.from({ length: 7 }, (_, i) => ({ url: `https://cdn.example.com/${i}.png` })) },
      'VALIDATION_FAILED',
    ],
    ['a control character', { name: 'a\u0000b' }, 'VALIDATION_FAILED'],
    ['an unregistered OAuth client', { oauthClientId: 'not-registered' }, 'UNKNOWN_OAUTH_CLIENT'],
  ])('400 for %s, and no revision is opened', async (_what, body, code) => {
    const app = await approvedApp(t, key);
    const response = await propose(app.id, body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(code);
    expect(await t.sql('select id from app_revisions where app_id = ?', [app.id])).toEqual([]);
  });
});

describe('deciding a revision', () => {
  test('approval applies the changes atomically; the approved slug stays fixed under a new name', async () => {
    await registerClient(t, dev.id, 'revision-client');
    const app = await approvedApp(t, key, completeApp({ name: 'Fixed Slug App', longDescription: 'Old' }));
    expect(app.slug).toBe('fixed-slug-app');
    const checksBefore = await assetChecksSettled(t, app.id);
    await propose(app.id, {
      name: 'Completely Different Name',
      longDescription: 'New <script>x</script> [link](javascript:alert(1))',
      oauthClientId: 'revision-client',
      // An app with an OAuth client discloses what it accesses.
      permissions: [{ scope: 'tasks:read', reason: 'Lists your tasks' }],
      dataHandling: { storesUserData: false, locations: [], thirdParties: [], retentionDays: null },
      screenshots: [{ url: 'https://cdn.example.com/r1.png' }, { url: 'https://cdn.example.com/r2.png' }],
      bannerUrl: null,
    });
    // The proposed images are checked (and mirrored) while the revision waits for review.
    expect(await assetChecksSettled(t, app.id)).toBe(checksBefore + 1);
    const approved = await decideRevision(deps(t), app.slug, 'approve', { actor: reviewer });
    expect(approved).toMatchObject({
      name: 'Completely Different Name',
      slug: 'fixed-slug-app',
      longDescription: 'New <script>x</script> [link](javascript:alert(1))',
      oauthClientId: 'revision-client',
      bannerUrl: null,
      status: 'APPROVED',
      version: app.version + 1,
      pendingRevision: null,
    });
    expect(approved.longDescriptionHtml).not.toContain('<script');
    expect(approved.longDescriptionHtml).not.toContain('href="javascript');
    expect(approved.screenshots.map((s) => s.url)).toEqual(['https://cdn.example.com/r1.png', 'https://cdn.example.com/r2.png']);
    expect(await t.sql('select slug from app_slugs where app_id = ?', [app.id])).toEqual([{ slug: 'fixed-slug-app' }]);

    const [revision] = await t.sql('select status, decided_by, decided_at from app_revisions where app_id = ?', [app.id]);
    expect(revision.status).toBe('APPROVED');
    expect(revision.decided_by).toBe('admin:reviewer-2');
    expect(revision.decided_at).not.toBeNull();
    const [audit] = await t.sql(`select actor, before, after from audit_log where subject_id = ? and action = 'app.revision.approve'`, [app.id]);
    expect(audit.actor).toBe('admin:reviewer-2');
    expect(audit.before).toMatchObject({ name: app.name, appVersion: app.version });
    expect(audit.after).toMatchObject({ name: 'Completely Different Name', appVersion: app.version + 1 });
    const [transition] = await t.sql(
      `select action, from_status, to_status, version from app_transitions where app_id = ? and action like 'revision.%'`,
      [app.id],
    );
    expect(transition).toEqual({ action: 'revision.approve', from_status: 'APPROVED', to_status: 'APPROVED', version: app.version + 1 });
    // And again after approval, which drops the checks of images no longer listed.
    expect(await assetCheckJobs(t, app.id)).toHaveLength(checksBefore + 2);
  });

  test('rejection needs a reason, keeps the live listing and records the reason', async () => {
    const app = await approvedApp(t, key);
    await propose(app.id, { name: 'Rejected Rename' });
    const live = await appRow(t, app.id);
    expect(await refusal(decideRevision(deps(t), app.id, 'reject', { actor: reviewer, reason: ' ' }))).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
    });
    const rejected = await decideRevision(deps(t), app.id, 'reject', { actor: reviewer, reason: 'The new name is misleading.' });
    expect(rejected.pendingRevision).toBeNull();
    expect(rejected.name).toBe(app.name);
    expect(await appRow(t, app.id)).toEqual(live);
    const [revision] = await t.sql('select status, rejection_reason, decided_by from app_revisions where app_id = ?', [app.id]);
    expect(revision).toEqual({ status: 'REJECTED', rejection_reason: 'The new name is misleading.', decided_by: 'admin:reviewer-2' });
    const audit = await t.sql(`select reason from audit_log where subject_id = ? and action = 'app.revision.reject'`, [app.id]);
    expect(audit).toEqual([{ reason: 'The new name is misleading.' }]);

    // A new proposal after a rejection opens a new revision.
    const again = await propose(app.id, { name: 'Second Rename' });
    expect(again.body.pendingRevision.id).not.toBe(revision.id);
  });

  test('no pending revision is 404; a stale revision version is 409 STALE_VERSION', async () => {
    const app = await approvedApp(t, key);
    expect(await refusal(decideRevision(deps(t), app.id, 'approve', { actor: reviewer }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await propose(app.id, { description: 'v1' });
    await propose(app.id, { description: 'v2' });
    const live = await appRow(t, app.id);
    expect(await refusal(decideRevision(deps(t), app.id, 'approve', { actor: reviewer, version: 1 }))).toMatchObject({
      status: 409,
      code: 'STALE_VERSION',
    });
    expect(await appRow(t, app.id)).toEqual(live);
    const applied = await decideRevision(deps(t), app.id, 'approve', { actor: reviewer, version: 2 });
    expect(applied.description).toBe('v2');
  });

  test('versions never repeat for an app: a decision on a rejected revision cannot land on the next one', async () => {
    const app = await approvedApp(t, key);
    const first = await propose(app.id, { description: 'First proposal.' });
    const seen = first.body.pendingRevision.version;
    // Reviewer A rejects it; the developer proposes again; reviewer B, still on the first page, decides "version seen".
    await decideRevision(deps(t), app.id, 'reject', { actor: reviewer, reason: 'Not like this.', version: seen });
    const second = await propose(app.id, { description: 'Second proposal, nobody reviewed it.' });
    expect(second.body.pendingRevision.version).toBe(seen + 1);
    const live = await appRow(t, app.id);
    for (const decision of ['approve', 'reject'] as const) {
      expect(await refusal(decideRevision(deps(t), app.id, decision, { actor: reviewer, version: seen, reason: 'Stale.' }))).toMatchObject({
        status: 409,
        code: 'STALE_VERSION',
      });
    }
    expect(await appRow(t, app.id)).toEqual(live);
    expect(await t.sql(`select status from app_revisions where app_id = ? order by created_at`, [app.id])).toEqual([
      { status: 'REJECTED' },
      { status: 'PENDING' },
    ]);
    // A merge moves on from the highest version the app ever gave out.
    expect((await propose(app.id, { name: 'Merged Name' })).body.pendingRevision.version).toBe(seen + 2);
    const applied = await decideRevision(deps(t), app.id, 'approve', { actor: reviewer, version: seen + 2 });
    expect(applied).toMatchObject({ description: 'Second proposal, nobody reviewed it.', name: 'Merged Name' });
    expect((await propose(app.id, { description: 'Third.' })).body.pendingRevision.version).toBe(seen + 3);
  });

  test('a revision of a suspended app is applied without relisting it', async () => {
    const app = await approvedApp(t, key);
    await decideApp(deps(t), app.id, 'suspend', { actor: reviewer });
    await propose(app.id, { description: 'Fixed.' });
    const applied = await decideRevision(deps(t), app.id, 'approve', { actor: reviewer });
    expect(applied).toMatchObject({ status: 'SUSPENDED', description: 'Fixed.' });
  });
});
