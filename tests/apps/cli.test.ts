import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { cliRunner } from '../support/cli.ts';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { appRow, approvedApp, createApp } from './fixtures.ts';
import { eventually } from '../support/eventually.ts';

let t: TestApp;
let cli: ReturnType<typeof cliRunner>;

beforeAll(async () => {
  t = await createTestApp();
  cli = cliRunner(t);
}, 30_000);
afterAll(() => t.close(), 30_000);

/** A developer of the test's own, with a key: its apps, revisions, clients and mail are no other test's. */
async function developer(): Promise<{ dev: TestDeveloper; key: string }> {
  const dev = await registerDeveloper(t);
  return { dev, key: await mintKey(t, dev) };
}

// Each test decides apps of its own developer, so the CLI processes start and work side by side.
// A test's clock runs while the others' processes share the two cores: under a load of 6–8 the
// longest took 24 s, so each may take twice the suite's usual 30 s.
setDefaultTimeout(60_000);
describe.concurrent('CLI', () => {
  test('apps:approve refuses a stale --version, then approves the current one', async () => {
    const { key } = await developer();
    const app = await createApp(t, key);
    const submitted = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    await t.call('PUT', `/api/dev/apps/${app.id}`, { token: key, body: { description: 'Edited after submitting.' } });
    const before = await appRow(t, app.id);

    const stale = await cli('apps:approve', app.slug, '--version', String(submitted.body.version));
    expect(stale.exitCode).toBe(1);
    expect(stale.stdout).toBe('');
    expect(stale.stderr).toContain('STALE_VERSION');
    expect(await appRow(t, app.id)).toEqual(before);

    const approved = await cli('apps:approve', app.slug, '--version', String(before.version));
    expect(approved.stderr).toBe('');
    expect(approved.exitCode).toBe(0);
    expect(approved.stdout).toBe(`${app.slug} is now APPROVED (version ${before.version})\n`);
    expect((await appRow(t, app.id)).status).toBe('APPROVED');
    const [transition] = await t.sql(`select actor from app_transitions where app_id = ? and action = 'approve'`, [app.id]);
    expect(transition.actor).toBe('cli');
  });

  test('apps:reject without --reason is a usage error and changes nothing', async () => {
    const { key } = await developer();
    const app = await createApp(t, key);
    await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    const result = await cli('apps:reject', app.id);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('--reason is required');
    expect((await appRow(t, app.id)).status).toBe('PENDING');
  });

  test('apps:feature and revisions:approve', async () => {
    const { key } = await developer();
    const app = await approvedApp(t, key);
    const featured = await cli('apps:feature', app.slug);
    expect(featured.exitCode).toBe(0);
    expect(featured.stdout).toBe(`${app.slug} is now APPROVED (version ${app.version}, featured)\n`);
    expect((await appRow(t, app.id)).featured).toBe(true);

    await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { description: 'Revised by the developer.' } });
    const revised = await cli('revisions:approve', app.id);
    expect(revised.exitCode).toBe(0);
    expect(revised.stdout).toBe(`revision approved: ${app.slug} is now APPROVED (version ${app.version + 1}, featured)\n`);
    expect((await appRow(t, app.id)).description).toBe('Revised by the developer.');
  });

  test('apps:show prints the listing and its pending revision; revisions:approve --version refuses a stale version', async () => {
    const { key } = await developer();
    const app = await approvedApp(t, key);
    await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { description: 'Proposal one.' } });
    const shown = await cli('apps:show', app.slug);
    expect(shown.exitCode).toBe(0);
    const listing = JSON.parse(shown.stdout);
    expect(listing).toMatchObject({ id: app.id, slug: app.slug, status: 'APPROVED', version: app.version });
    expect(listing.pendingRevision).toMatchObject({ version: 1, changes: { description: 'Proposal one.' } });

    // The developer adds to the revision after the reviewer looked at version 1.
    await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { name: 'Renamed In Proposal Two' } });
    const stale = await cli('revisions:approve', app.slug, '--version', '1');
    expect(stale.exitCode).toBe(1);
    expect(stale.stderr).toContain('STALE_VERSION');
    expect((await appRow(t, app.id)).description).not.toBe('Proposal one.');
    const staleReject = await cli('revisions:reject', app.slug, '--version', '1', '--reason', 'No.');
    expect(staleReject.exitCode).toBe(1);
    expect(staleReject.stderr).toContain('STALE_VERSION');

    const current = await cli('revisions:approve', app.slug, '--version', '2');
    expect(current.exitCode).toBe(0);
    expect(await appRow(t, app.id)).toMatchObject({ description: 'Proposal one.', name: 'Renamed In Proposal Two' });
    expect((await cli('apps:show', 'no-such-app')).exitCode).toBe(1);
  });

  test('revisions:reject refuses a stale --version and changes nothing; the current one is decided', async () => {
    const { key } = await developer();
    const app = await approvedApp(t, key);
    const first = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { description: 'First proposal.' } });
    const seen = first.body.pendingRevision.version;
    const replaced = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { description: 'Second proposal.' } });
    expect(replaced.body.pendingRevision.version).toBe(seen + 1);

    const stale = await cli('revisions:reject', app.slug, '--reason', 'Not like this', '--version', String(seen));
    expect(stale.exitCode).toBe(1);
    expect(stale.stderr).toContain('STALE_VERSION');
    const [pending] = await t.sql(`select status, rejection_reason from app_revisions where app_id = ?`, [app.id]);
    expect(pending).toEqual({ status: 'PENDING', rejection_reason: null });

    const current = await cli('revisions:reject', app.slug, '--reason', 'Not like this', '--version', String(seen + 1));
    expect(current.exitCode).toBe(0);
    expect(current.stdout).toStartWith('revision rejected: ');
    const [decided] = await t.sql(`select status, rejection_reason from app_revisions where app_id = ?`, [app.id]);
    expect(decided).toEqual({ status: 'REJECTED', rejection_reason: 'Not like this' });

    // The developer proposes again: the version a reviewer saw on the rejected revision names nothing pending.
    const next = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { description: 'Third proposal.' } });
    expect(next.body.pendingRevision.version).toBe(seen + 2);
    const onRejected = await cli('revisions:approve', app.slug, '--version', String(seen + 1));
    expect(onRejected.exitCode).toBe(1);
    expect(onRejected.stderr).toContain('STALE_VERSION');
    expect((await appRow(t, app.id)).description).not.toBe('Third proposal.');
  });

  test('oauth-clients:register registers a client the developer can then use', async () => {
    const { dev, key } = await developer();
    const result = await cli('oauth-clients:register', '--developer', dev.email, '--client-id', 'cli-registered', '--name', 'CLI Client');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`registered OAuth client cli-registered (CLI Client) for developer ${dev.id}\n`);
    const created = await t.call('POST', '/api/dev/apps', {
      token: key,
      body: { name: 'With Client', description: 'Uses OAuth.', category: 'OTHER', environment: 'staging', oauthClientId: 'cli-registered' },
    });
    expect(created.status).toBe(201);
    const duplicate = await cli('oauth-clients:register', '--developer', dev.email, '--client-id', 'cli-registered', '--name', 'Again');
    expect(duplicate.exitCode).toBe(1);
    expect(duplicate.stderr).toContain('CONFLICT');
  });

  // Serial: the outbox's latest 50 mails are every test's.
  test.serial(
    'mail:outbox lists kept mail and prints one in full',
    async () => {
      const { dev } = await developer();
      const messageId = `developer-verified:${dev.id}`;
      await eventually(async () => (await t.sql('select 1 from emails where message_id = ?', [messageId]))[0]);
      const listed = await cli('mail:outbox', '--limit', '50');
      expect(listed.exitCode).toBe(0);
      expect(listed.stdout).toContain(`outbox  ${dev.email}  Your developer account is verified  [${messageId}]`);
      const shown = await cli('mail:outbox', '--show', messageId);
      expect(shown.exitCode).toBe(0);
      expect(shown.stdout).toStartWith(`To: ${dev.email}\nSubject: Your developer account is verified\n\nHello `);
      const unknown = await cli('mail:outbox', '--show', 'no-such-message');
      expect(unknown.exitCode).toBe(1);
      expect(unknown.stderr).toContain('No e-mail with message id');
    },
    30_000,
  );
});
