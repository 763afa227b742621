import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { refusal } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { supportEditApp } from '../../src/modules/apps/support-edits.service.ts';
import { buildWorld, type World } from './world.ts';
import { createAdminAccount, signedIn, type AdminAccount } from './support.ts';

/** Support edits of live listings: applied at once, audited before/after, mailed to the developer. */
let t: TestApp;
let world: World;
let support: AdminAccount;

beforeAll(async () => {
  t = await createTestApp();
  world = await buildWorld(t);
  support = await createAdminAccount(t, 'support');
});
afterAll(() => t.close());

const row = async (id: string) => (await t.sql('select name, description, website_url, version, oauth_client_id from apps where id = ?', [id]))[0];

describe('support edits', () => {
  test('change the live listing, bump its version, keep before/after in the audit log and e-mail the developer the changes', async () => {
    const client = await signedIn(t, support);
    const page = await client.get(`/admin/apps/${world.approved.id}`);
    const version = Number(page.text.match(/action="\/admin\/apps\/[^"]+\/edit"[\s\S]*?name="version" value="(\d+)"/)![1]);
    const response = await client.post(
      `/admin/apps/${world.approved.id}/edit`,
      {
        version: String(version),
        name: world.approved.name,
        description: 'Kanban boards for every team.',
        websiteUrl: 'https://boards.example.com',
        note: 'Fixed the typo you reported.',
      },
      { htmx: true },
    );
    expect(response.status).toBe(200);
    expect(response.text).toStartWith('<div id="app-page">');
    expect(response.text).toContain('Saved: Description, Website URL.');

    const listing = (await t.call('GET', `/api/apps/${world.approved.slug}`)).body;
    expect(listing).toMatchObject({ description: 'Kanban boards for every team.', websiteUrl: 'https://boards.example.com', version: version + 1 });

    const [audit] = await t.sql(
      `select id, actor, actor_role, before, after, reason from audit_log where action = 'app.support-edit' and subject_id = ?`,
      [world.approved.id],
    );
    expect(audit).toMatchObject({
      actor: `admin:${support.id}`,
      actor_role: 'support',
      before: { description: 'Tracks the time spent on each task.', websiteUrl: 'https://board.example.com', version },
      after: { description: 'Kanban boards for every team.', websiteUrl: 'https://boards.example.com', version: version + 1 },
      reason: 'Fixed the typo you reported.',
    });

    const mail = await eventually(
      async () => (await t.sql('select to_address, subject, text_body from emails where message_id = ?', [`listing-edited:${audit.id}`]))[0],
    );
    expect(mail.to_address).toBe(world.developer.email);
    expect(mail.subject).toBe(`Support edited the listing of "${world.approved.name}"`);
    expect(mail.text_body).toContain('• Description: "Tracks the time spent on each task." → "Kanban boards for every team."');
    expect(mail.text_body).toContain('• Website URL: "https://board.example.com" → "https://boards.example.com"');
    expect(mail.text_body).toContain('Fixed the typo you reported.');
  });

  test('refused, changing nothing: a stale version, a bad URL, no change at all, a PENDING app, and oauthClientId', async () => {
    const client = await signedIn(t, support);
    const before = await row(world.approved.id);
    const edit = (fields: Record<string, string>, id = world.approved.id) => client.post(`/admin/apps/${id}/edit`, fields, { htmx: true });

    const stale = await edit({ version: String(before.version - 1), description: 'Stale edit.' });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain(`changed since version ${before.version - 1}`);
    const badUrl = await edit({ version: String(before.version), websiteUrl: 'javascript:alert(1)' });
    expect(badUrl.status).toBe(400);
    expect(badUrl.text).toContain('javascript:alert(1)'); // what support typed stays in the form (escaped)
    expect(badUrl.text).not.toContain('href="javascript:');
    expect((await edit({ version: String(before.version), description: before.description })).status).toBe(400);
    const pending = await edit({ version: String(world.pending.version), description: 'Not live yet.' }, world.pending.id);
    expect(pending.status).toBe(409);
    expect(await row(world.approved.id)).toEqual(before);

    // The form never offers oauthClientId, and the service refuses it outright.
    const refused = await refusal(
      supportEditApp(
        { em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs },
        world.approved.id,
        { changes: { oauthClientId: 'someone-else' }, version: before.version },
        { label: 'test' },
      ),
    );
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(await row(world.approved.id)).toEqual(before);
  });
});
