import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { DISCLOSURE, approvedApp, completeApp, createApp, registerClient } from '../apps/fixtures.ts';
import { buildWorld, submit, type World } from './world.ts';
import { createAdminAccount, signedIn, type AdminAccount } from './support.ts';

/** The review queue and review pages: versions, reasons, claims, diffs and warnings. */
let t: TestApp;
let world: World;
let alice: AdminAccount;
let bob: AdminAccount;

beforeAll(async () => {
  t = await createTestApp();
  world = await buildWorld(t);
  alice = await createAdminAccount(t, 'reviewer');
  bob = await createAdminAccount(t, 'reviewer');
  // Building the world takes several seconds when the machine is busy.
}, 30_000);
afterAll(() => t.close());

const ownerView = async (id: string) => (await t.call('GET', `/api/dev/apps/${id}`, { token: world.key })).body;

async function pendingApp(overrides: Record<string, unknown> = {}) {
  const app = await createApp(t, world.key, completeApp(overrides));
  return submit(t, world.key, app.id);
}

describe('deciding an app', () => {
  test('a decision on a version the developer has since edited is refused; the page shows the new version', async () => {
    const app = await pendingApp();
    const client = await signedIn(t, alice);
    const page = await client.get(`/admin/review/apps/${app.id}`);
    expect(page.text).toContain(`name="version" value="${app.version}"`);
    await t.call('PUT', `/api/dev/apps/${app.id}`, { token: world.key, body: { description: 'Changed while under review.' } });

    const htmx = await client.post(`/admin/review/apps/${app.id}/approve`, { checked: 'yes', version: String(app.version) }, { htmx: true });
    expect(htmx.status).toBe(409);
    expect(htmx.text).toStartWith('<div id="review">');
    expect(htmx.text).toContain(`The app changed since version ${app.version} (now ${app.version + 1})`);
    expect(htmx.text).toContain(`name="version" value="${app.version + 1}"`);
    expect(htmx.text).toContain('Changed while under review.');
    expect((await ownerView(app.id)).status).toBe('PENDING');

    // Without JavaScript: back to the review page, which says why and shows the current version.
    const plain = await client.post(`/admin/review/apps/${app.id}/approve`, {
      checked: 'yes',
      version: String(app.version),
      returnTo: `/admin/review/apps/${app.id}`,
    });
    expect(plain.status).toBe(303);
    const after = await client.get(plain.location!);
    expect(after.text).toContain(`The app changed since version ${app.version}`);
    expect(after.text).toContain(`name="version" value="${app.version + 1}"`);
    expect((await ownerView(app.id)).status).toBe('PENDING');

    const approved = await client.post(`/admin/review/apps/${app.id}/approve`, { checked: 'yes', version: String(app.version + 1) }, { htmx: true });
    expect(approved.status).toBe(200);
    expect(approved.text).toContain('is approved. Nothing is left to decide here.');
    expect((await ownerView(app.id)).status).toBe('APPROVED');
    expect((await t.call('GET', `/api/apps/${app.slug}`)).status).toBe(200);
  });

  test('a rejection needs a reason: none is 400 and keeps the app PENDING; canned and own words reach rejectionReason', async () => {
    const app = await pendingApp();
    const client = await signedIn(t, alice);
    await client.get(`/admin/review/apps/${app.id}`);
    const empty = await client.post(`/admin/review/apps/${app.id}/reject`, { version: String(app.version), reason: '   ' }, { htmx: true });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('A rejection needs a reason');
    expect((await ownerView(app.id)).status).toBe('PENDING');

    const rejected = await client.post(
      `/admin/review/apps/${app.id}/reject`,
      { version: String(app.version), reasons: ['screenshots', 'privacy'], reason: 'Also: the logo is blurry.' },
      { htmx: true },
    );
    expect(rejected.status).toBe(200);
    const view = await ownerView(app.id);
    expect(view.status).toBe('REJECTED');
    expect(view.rejectionReason).toBe(
      '- The screenshots do not show the app as it works.\n- The privacy policy is missing or does not cover the data the app uses.\nAlso: the logo is blurry.',
    );
    const unknown = await client.post(`/admin/review/apps/${app.id}/reject`, { version: String(app.version), reasons: ['made-up'] }, { htmx: true });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('Unknown rejection reason');
  });
});

describe('deciding a revision', () => {
  test('a decision on a revision replaced since is refused; the current one is decided', async () => {
    const client = await signedIn(t, bob);
    const page = await client.get(`/admin/review/revisions/${world.approved.id}`);
    const seen = Number(page.text.match(/name="version" value="(\d+)"/)![1]);
    expect(page.text).toContain('Boards for every team.');
    await t.call('POST', `/api/dev/apps/${world.approved.id}/revisions`, {
      token: world.key,
      body: { description: 'Boards for every team, now with lanes.' },
    });

    const stale = await client.post(
      `/admin/review/revisions/${world.approved.id}/approve`,
      { checked: 'yes', version: String(seen) },
      { htmx: true },
    );
    expect(stale.status).toBe(409);
    expect(stale.text).toContain(`The revision changed since version ${seen} (now ${seen + 1})`);
    expect(stale.text).toContain('now with lanes.');
    expect((await ownerView(world.approved.id)).pendingRevision.version).toBe(seen + 1);

    const approved = await client.post(
      `/admin/review/revisions/${world.approved.id}/approve`,
      { checked: 'yes', version: String(seen + 1) },
      { htmx: true },
    );
    expect(approved.status).toBe(200);
    const view = await ownerView(world.approved.id);
    expect(view.pendingRevision).toBeNull();
    expect(view.description).toBe('Boards for every team, now with lanes.');
    expect((await t.call('GET', `/api/apps/${world.approved.slug}`)).body.description).toBe('Boards for every team, now with lanes.');
  });
});

describe('a stale page never decides a later submission or revision', () => {
  test('reviewer B, still on a revision reviewer A rejected, cannot approve the revision proposed after it', async () => {
    const app = await approvedApp(t, world.key);
    await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: world.key, body: { description: 'The first proposal.' } });
    const a = await signedIn(t, alice);
    const b = await signedIn(t, bob);
    const seenByB = (await b.get(`/admin/review/revisions/${app.id}`)).text;
    const seen = Number(seenByB.match(/name="version" value="(\d+)"/)![1]);
    const rejected = await a.post(`/admin/review/revisions/${app.id}/reject`, { version: String(seen), reason: 'Misleading.' }, { htmx: true });
    expect(rejected.status).toBe(200);
    await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: world.key, body: { description: 'A second proposal nobody reviewed.' } });

    const stale = await b.post(`/admin/review/revisions/${app.id}/approve`, { version: String(seen) }, { htmx: true });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain(`The revision changed since version ${seen}`);
    expect(stale.text).toContain('A second proposal nobody reviewed.');
    const view = await ownerView(app.id);
    expect(view.pendingRevision).toMatchObject({ version: seen + 1, changes: { description: 'A second proposal nobody reviewed.' } });
    expect(view.description).toBe(app.description);
  });

  test('a page of a rejected submission cannot approve its resubmission, even without an edit', async () => {
    const app = await pendingApp();
    const a = await signedIn(t, alice);
    const b = await signedIn(t, bob);
    const seen = Number((await b.get(`/admin/review/apps/${app.id}`)).text.match(/name="version" value="(\d+)"/)![1]);
    expect(seen).toBe(app.version);
    expect((await a.post(`/admin/review/apps/${app.id}/reject`, { version: String(seen), reason: 'Blurry.' }, { htmx: true })).status).toBe(200);
    await submit(t, world.key, app.id);

    const stale = await b.post(`/admin/review/apps/${app.id}/approve`, { version: String(seen) }, { htmx: true });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain(`The app changed since version ${seen}`);
    expect((await ownerView(app.id)).status).toBe('PENDING');
  });
});

describe('what the review page shows', () => {
  test('a resubmission: field-by-field diff against the version last rejected, with that rejection', async () => {
    const client = await signedIn(t, alice);
    const page = await client.get(`/admin/review/apps/${world.resubmitted.id}`);
    expect(page.text).toContain('Changes since the last rejection');
    expect(page.text).toContain('Screenshots are blurry.');
    expect(page.text).toMatch(
      /<td>Description<\/td>\s*<td class="before">[\s\S]*Syncs calendars\.[\s\S]*<td class="after">[\s\S]*Syncs your calendars both ways\./,
    );
  });

  test('look-alike approved names and the OAuth client with its owner', async () => {
    await registerClient(t, world.developer.email, 'board-client');
    const app = await pendingApp({ name: 'Task Boards', oauthClientId: 'board-client', ...DISCLOSURE });
    const client = await signedIn(t, alice);
    const page = await client.get(`/admin/review/apps/${app.id}`);
    expect(page.text).toContain('Look-alike names');
    expect(page.text).toContain(`<a href="/admin/apps/${world.approved.id}">Task Board</a>`);
    expect(page.text).toContain('<code>board-client</code>');
    expect(page.text).toContain(`<a href="/admin/developers/${world.developer.id}">Ada Builder</a> (${world.developer.email})`);
  });
});

describe('the data access disclosure in the console', () => {
  test('the review page and the app page show the scopes with their labels and reasons, the locations and the third parties', async () => {
    await registerClient(t, world.developer.email, 'disclosed-client');
    const app = await pendingApp({
      oauthClientId: 'disclosed-client',
      permissions: [
        { scope: 'comments:write', reason: 'Posts the minutes as a comment' },
        { scope: 'tasks:read', reason: 'Links notes to tasks' },
      ],
      dataHandling: {
        storesUserData: true,
        locations: ['EU', 'CA'],
        thirdParties: [{ name: 'Mailgun', purpose: 'Sends reminders' }],
        retentionDays: 14,
      },
    });
    const client = await signedIn(t, alice);
    for (const path of [`/admin/review/apps/${app.id}`, `/admin/apps/${app.id}`]) {
      const text = (await client.get(path)).text;
      const shown = text.match(/<section class="disclosure"[\s\S]*?<\/section>/)?.[0];
      expect(shown, path).toBeDefined();
      // In the platform's order, each with its label and reason.
      expect(shown!).toMatch(
        /See your tasks<\/strong> <code>tasks:read<\/code>[\s\S]*Links notes to tasks[\s\S]*<code>comments:write<\/code>[\s\S]*Posts the minutes/,
      );
      expect(shown!).toContain('EU, CA');
      expect(shown!).toContain('Mailgun: Sends reminders');
      expect(shown!).toContain('14 days');
    }
  });
});

describe('queue flags', () => {
  const rowOf = (html: string, id: string) => html.match(new RegExp(`<tr id="${id}">[\\s\\S]*?</tr>`))?.[0] ?? null;
  const flagsOf = (html: string, id: string) => rowOf(html, id)!.match(/<td class="flags">([\s\S]*?)<\/td>/)![1]!;

  test('a resubmission is "resubmitted"; a revision that only drops scopes is not "new permissions", one that adds a scope is; each flag filters', async () => {
    await registerClient(t, world.developer.email, 'flags-client');
    const disclosed = (scopes: string[]) =>
      completeApp({
        oauthClientId: 'flags-client',
        permissions: scopes.map((scope) => ({ scope, reason: `Needs ${scope}` })),
        dataHandling: DISCLOSURE.dataHandling,
      });
    const widening = await approvedApp(t, world.key, disclosed(['tasks:read']));
    const narrowing = await approvedApp(t, world.key, disclosed(['tasks:read', 'tasks:write']));
    const propose = (id: string, scopes: string[]) =>
      t.call('POST', `/api/dev/apps/${id}/revisions`, {
        token: world.key,
        body: { permissions: scopes.map((scope) => ({ scope, reason: `Needs ${scope}` })) },
      });
    expect((await propose(widening.id, ['tasks:read', 'files:read'])).status).toBe(201);
    expect((await propose(narrowing.id, ['tasks:read'])).status).toBe(201);
    const fresh = await pendingApp();

    const client = await signedIn(t, alice);
    const queue = (await client.get('/admin/review')).text;
    expect(flagsOf(queue, `queue-app-${world.resubmitted.id}`)).toContain('resubmitted');
    expect(flagsOf(queue, `queue-app-${fresh.id}`)).not.toContain('resubmitted');
    expect(flagsOf(queue, `queue-revision-${widening.id}`)).toContain('new permissions');
    expect(flagsOf(queue, `queue-revision-${narrowing.id}`)).not.toContain('new permissions');

    const resubmitted = (await client.get('/admin/review?flag=resubmitted')).text;
    expect(rowOf(resubmitted, `queue-app-${world.resubmitted.id}`)).not.toBeNull();
    expect(rowOf(resubmitted, `queue-app-${fresh.id}`)).toBeNull();
    const widened = (await client.get('/admin/review?flag=permissions')).text;
    expect(rowOf(widened, `queue-revision-${widening.id}`)).not.toBeNull();
    expect(rowOf(widened, `queue-revision-${narrowing.id}`)).toBeNull();
    expect(rowOf(widened, `queue-app-${fresh.id}`)).toBeNull();
  });
});

describe('claims', () => {
  test("two reviewers see each other's claims in the queue and on the page; a claim expires; one can take over", async () => {
    const app = await pendingApp({ name: 'Claimed App' });
    const a = await signedIn(t, alice);
    const b = await signedIn(t, bob);
    const claimedRow = (html: string) => html.match(new RegExp(`<tr id="queue-app-${app.id}">[\\s\\S]*?</tr>`))![0];

    // Opening the page claims nothing; "Start review" does.
    expect((await a.get(`/admin/review/apps/${app.id}`)).text).toContain('Nobody is reviewing this');
    expect(claimedRow((await b.get('/admin/review')).text)).not.toContain(alice.email);
    expect((await a.post(`/admin/review/apps/${app.id}/claim`, {}, { htmx: true })).text).toContain('You are reviewing this');
    expect(claimedRow((await b.get('/admin/review')).text)).toContain(alice.email);
    expect(claimedRow((await a.get('/admin/review')).text)).toContain('>You<');
    const bPage = await b.get(`/admin/review/apps/${app.id}`);
    expect(bPage.text).toContain(`<strong>${alice.email}</strong> is reviewing this`);
    expect(bPage.text).toContain('Take over');

    // Alice's open page renews her claim; Bob's polling does not take it.
    expect((await a.get(`/admin/review/apps/${app.id}/claim`, { htmx: true })).text).toContain('You are reviewing this');
    expect((await b.get(`/admin/review/apps/${app.id}/claim`, { htmx: true })).text).toContain(`<strong>${alice.email}</strong>`);

    const taken = await b.post(`/admin/review/apps/${app.id}/claim/take-over`, { confirmed: 'yes' }, { htmx: true });
    expect(taken.text).toContain('You are reviewing this');
    expect(claimedRow((await a.get('/admin/review')).text)).toContain(bob.email);

    // Alice's heartbeat no longer renews a claim that is Bob's; Bob's "Release" ends it.
    expect((await a.get(`/admin/review/apps/${app.id}/claim`, { htmx: true })).text).toContain(`<strong>${bob.email}</strong>`);
    expect((await b.post(`/admin/review/apps/${app.id}/claim/release`, {}, { htmx: true })).text).toContain('Nobody is reviewing this');
    expect(claimedRow((await a.get('/admin/review')).text)).not.toContain(bob.email);

    await b.post(`/admin/review/apps/${app.id}/claim`, {}, { htmx: true });
    await t.sql(`update review_claims set expires_at = now() - interval '1 second' where subject = ?`, [`app:${app.id}`]);
    expect(claimedRow((await a.get('/admin/review')).text)).not.toContain(bob.email);
    // An expired claim is not renewed by its page's heartbeat.
    expect((await b.get(`/admin/review/apps/${app.id}/claim`, { htmx: true })).text).toContain('Nobody is reviewing this');
  });
});
