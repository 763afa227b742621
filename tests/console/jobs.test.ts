import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';
import { buildWorld, deadStatsJob, type World } from './world.ts';
import { createAdminAccount, signedIn, type AdminAccount } from './support.ts';

/** The Jobs page: queue health, dead letters and "Retry", the outbox and its sandboxed preview. */
let t: TestApp;
let world: World;
let support: AdminAccount;

beforeAll(async () => {
  t = await createTestApp();
  world = await buildWorld(t);
  support = await createAdminAccount(t, 'support');
});
afterAll(() => t.close());

describe('dead letters', () => {
  test('listed per queue with the error; "Retry" re-enqueues the job once, and its work then happens', async () => {
    // An install whose roll-up died: the public count stays behind until the job is retried. Roll-ups
    // are deferred a second to coalesce, so earlier ones must be done first.
    await eventually(async () => (await t.sql(`select 1 from pgboss.job where name = 'stats.installs' and state < 'completed'`)).length === 0);
    await t.sql(`insert into installs (app_id, installer) values (?, 'user:late-install')`, [world.approved.id]);
    const jobId = await deadStatsJob(t);
    const installsBefore = (await t.call('GET', `/api/apps/${world.approved.slug}`)).body.installCount;

    const client = await signedIn(t, support);
    const page = await client.get('/admin/jobs');
    expect(page.text).toContain(`id="dead-${jobId}"`);
    expect(page.text).toContain('disk full (test)');
    const health = await client.get('/admin/queue-health', { htmx: true });
    expect(health.text).toMatch(/<code>stats\.installs<\/code>[\s\S]*?<strong class="alert-figure">1<\/strong>/);

    const retried = await client.post(`/admin/jobs/dead/stats.installs.dead/${jobId}/retry`, {}, { htmx: true });
    expect(retried.status).toBe(200);
    expect(retried.text).toContain('Re-enqueued.');
    expect(await t.sql(`select 1 from pgboss.job where name = 'stats.installs.dead' and id = ?`, [jobId])).toEqual([]);
    await eventually(async () => (await t.call('GET', `/api/apps/${world.approved.slug}`)).body.installCount === installsBefore + 1);

    const again = await client.post(`/admin/jobs/dead/stats.installs.dead/${jobId}/retry`, {}, { htmx: true });
    expect(again.status).toBe(409);
    expect(again.text).toContain('no longer dead-lettered');
    const audit = await t.sql(`select actor, after from audit_log where action = 'job.retry' and subject_id = ?`, [jobId]);
    expect(audit).toEqual([{ actor: `admin:${support.id}`, after: { queue: 'stats.installs' } }]);
  });

  test('every registered queue is listed, with its dead-letter count where it has one', async () => {
    const client = await signedIn(t, support);
    const page = await client.get('/admin/jobs');
    for (const name of ['stats.app', 'stats.categories', 'apps.asset-checks', 'mail.send', 'api-keys.expiry-scan', 'admins.daily-digest']) {
      expect(page.text).toContain(`<code>${name}</code>`);
    }
  });
});

describe('outbox', () => {
  test('lists sent and kept mail; the HTML preview is framed from a sandboxed route of its own', async () => {
    const client = await signedIn(t, support);
    const [mail] = await t.sql(`select message_id, subject from emails order by sent_at limit 1`);
    const list = await client.get('/admin/jobs/outbox');
    expect(list.text).toContain(mail.subject.replaceAll('"', '&quot;'));
    const path = `/admin/jobs/outbox/${encodeURIComponent(mail.message_id)}`;
    const page = await client.get(path);
    expect(page.text).toContain(
      `<iframe class="preview" sandbox="" referrerpolicy="no-referrer" title="Rendered e-mail" src="${path}/preview"></iframe>`,
    );
    const preview = await client.get(`${path}/preview`);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-security-policy')).toStartWith("sandbox; default-src 'none'");
    expect(preview.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    expect(preview.text).toContain('<!doctype html>');
  });
});

describe('audit log', () => {
  test('shows who did what under which role; no route changes it, and the table refuses it too', async () => {
    const client = await signedIn(t, support);
    const page = await client.get('/admin/audit?action=app.approve');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<code>app.approve</code>');
    expect(t.app.routes.filter((r) => r.path.startsWith('/admin/audit')).map((r) => r.method)).toEqual(['GET']);
    expect(t.sql(`update audit_log set reason = 'rewritten'`)).rejects.toThrow(/append-only/);
    expect(t.sql('delete from audit_log')).rejects.toThrow(/append-only/);
  });
});
