import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { dereferenced } from '../support/openapi.ts';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { approvedApp, completeApp, createApp, deps } from './fixtures.ts';

/** A PENDING app's owner view, and a pending revision's, say where they stand in the review queue. */
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  key = await mintKey(t, await registerDeveloper(t));
});
afterAll(() => t.close());

const HOUR = 3_600_000;
const read = async (id: string) => (await t.call('GET', `/api/dev/apps/${id}`, { token: key })).body;

async function submitted(at: Date) {
  const app = await createApp(t, key, completeApp());
  await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
  await t.sql('update apps set submitted_at = ? where id = ?', [at.toISOString(), app.id]);
  return app;
}

describe('review standing', () => {
  test('PENDING apps and pending revisions share one queue, oldest first; without history the estimate is the 48 h target', async () => {
    const now = Date.now();
    const first = await submitted(new Date(now - 3 * HOUR));
    const revised = await approvedApp(t, key);
    await t.call('POST', `/api/dev/apps/${revised.id}/revisions`, { token: key, body: { description: 'Proposed.' } });
    const [revision] = await t.sql(`select id from app_revisions where app_id = ? and status = 'PENDING'`, [revised.id]);
    await t.sql('update app_revisions set created_at = ? where id = ?', [new Date(now - 2 * HOUR).toISOString(), revision.id]);
    const last = await submitted(new Date(now - HOUR));

    const a = await read(first.id);
    expect(a.review).toEqual({ queuePosition: 1, expectedDecisionBy: new Date(now - 3 * HOUR + 48 * HOUR).toISOString() });
    const r = await read(revised.id);
    expect(r.review).toBeNull(); // the app itself is approved
    expect(r.pendingRevision.review).toEqual({ queuePosition: 2, expectedDecisionBy: new Date(now - 2 * HOUR + 48 * HOUR).toISOString() });
    expect((await read(last.id)).review.queuePosition).toBe(3);

    // The list shows the same standing.
    const listed = (await t.call('GET', '/api/dev/apps?limit=100', { token: key })).body.data.find((app: { id: string }) => app.id === last.id);
    expect(listed.review.queuePosition).toBe(3);

    // A decision moves everyone behind it up.
    await decideApp(deps(t), first.id, 'approve', { actor: CLI_ACTOR });
    expect((await read(first.id)).review).toBeNull();
    expect((await read(revised.id)).pendingRevision.review.queuePosition).toBe(1);
    expect((await read(last.id)).review.queuePosition).toBe(2);
    await decideApp(deps(t), last.id, 'approve', { actor: CLI_ACTOR });
    await t.sql(`update app_revisions set status = 'REJECTED', decided_at = now() where id = ?`, [revision.id]);
  });

  test('an app overdue against the estimate expects its decision now, not in the past', async () => {
    const app = await submitted(new Date(Date.now() - 100 * HOUR));
    const before = Date.now();
    const expected = Date.parse((await read(app.id)).review.expectedDecisionBy);
    expect(expected).toBeGreaterThanOrEqual(before - 1000);
    expect(expected).toBeLessThanOrEqual(Date.now() + 1000);
    await decideApp(deps(t), app.id, 'approve', { actor: CLI_ACTOR });
  });

  test('with enough recent decisions the estimate is the median time they took', async () => {
    // Six decisions that took 2 h each (submitted, then decided two hours later).
    for (let i = 0; i < 6; i += 1) {
      const app = await submitted(new Date());
      await decideApp(deps(t), app.id, 'approve', { actor: CLI_ACTOR });
      await t.sql(`update app_transitions set created_at = created_at - interval '2 hours' where app_id = ? and action = 'submit'`, [app.id]);
    }
    // The median is cached for a minute per ORM; a second service on the same database computes it from these rows.
    const fresh = await createTestApp({ DATABASE_URL: t.runtime.databaseUrl }, { ownDatabase: true });
    try {
      const since = new Date(Date.now() - 30 * 60_000);
      const app = await submitted(since);
      const body = (await fresh.call('GET', `/api/dev/apps/${app.id}`, { token: key })).body;
      // Each decision took 2 h plus the few milliseconds between submitting and deciding here.
      expect(Math.abs(Date.parse(body.review.expectedDecisionBy) - (since.getTime() + 2 * HOUR))).toBeLessThan(1000);
    } finally {
      await fresh.close();
    }
    // Starting a second whole service (pool, pg-boss, workers) takes a few seconds on a loaded machine.
  }, 30_000);

  test('the OpenAPI document shows review on the owner view and on the pending revision', async () => {
    const document = dereferenced((await t.call('GET', '/swagger/json')).body);
    const schema = JSON.stringify(document.paths['/api/dev/apps/{id}'].get.responses['200']);
    expect(schema).toContain('"queuePosition"');
    expect(schema).toContain('"expectedDecisionBy"');
    expect(schema.match(/"queuePosition"/g)!.length).toBeGreaterThanOrEqual(2);
  });
});
