import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { createTestApp, listen, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp, assetChecksSettled, completeApp, createApp, registerClient } from '../apps/fixtures.ts';
import { image, startImageServer, type ImageServer } from '../assets/image-server.ts';
import { png } from '../assets/images.ts';
import { submit } from './world.ts';
import { createAdminAccount, type AdminAccount } from './support.ts';
import { launchBrowser } from './browser.ts';

/**
 * The reviewer's flow in a real browser (the system Chromium): what a queue row flags, the
 * evidence standing above the decision buttons, and the effect of a decision on the public API.
 */
let t: TestApp;
let server: ReturnType<typeof listen>;
let browser: Browser;
let page: Page;
let reviewer: AdminAccount;
let key: string;
let images: ImageServer;
/** An approved app whose pending revision asks for a scope it did not have. */
let widened: { id: string; slug: string; name: string };
/** PENDING apps: good images and a unique name; images that cannot be fetched and a look-alike name; two more clean ones. */
let clean: { id: string; name: string };
let broken: { id: string; name: string };
let extraA: { id: string; name: string };
let extraB: { id: string; name: string };
const violations: string[] = [];

const url = (path: string) => `${server.baseUrl}${path}`;
const textOf = async (locator: Locator) => (await locator.textContent()) ?? '';
const top = async (locator: Locator) => (await locator.boundingBox())!.y;

/** Waits for `check`; on a timeout the error carries what the page's main area then said. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what} on ${page.url()}; the page said: ${(await textOf(page.locator('main'))).replace(/\s+/g, ' ')}`);
    await Bun.sleep(50);
  }
}

/** A staging listing (http allowed) whose images this test serves, or a 404 for each with `unfetchable`. */
const servedListing = (name: string, unfetchable = false) =>
  completeApp({
    name,
    environment: 'staging',
    logoUrl: `${images.origin}/${unfetchable ? 'missing-logo' : 'logo'}.png`,
    screenshots: [
      { url: `${images.origin}/${unfetchable ? 'missing-one' : 'shot-one'}.png`, caption: 'Today' },
      { url: `${images.origin}/${unfetchable ? 'missing-two' : 'shot-two'}.png`, caption: 'A very wide screenshot' },
    ],
  });

async function pendingApp(name: string, unfetchable = false) {
  const app = await submit(t, key, (await createApp(t, key, servedListing(name, unfetchable))).id);
  await assetChecksSettled(t, app.id);
  return { id: app.id as string, name: app.name as string };
}

beforeAll(async () => {
  images = startImageServer({
    '/logo.png': image(png(512, 512), 'image/png'),
    '/shot-one.png': image(png(1280, 720), 'image/png'),
    '/shot-two.png': image(png(2560, 720), 'image/png'),
  });
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true' });
  const developer = await registerDeveloper(t, { name: 'Ada Builder' });
  // Awaiting verification, so the developers page has the status once shown raw (PENDING_VERIFICATION).
  await registerDeveloper(t, { verified: false, name: 'Grace Pending' });
  key = await mintKey(t, developer);
  await registerClient(t, developer.id, 'notes-web');
  const app = await approvedApp(
    t,
    key,
    completeApp({
      name: 'Meeting Notes',
      oauthClientId: 'notes-web',
      permissions: [{ scope: 'tasks:read', reason: 'Links notes to tasks' }],
      dataHandling: { storesUserData: true, locations: ['EU'], thirdParties: [], retentionDays: 90 },
    }),
  );
  widened = { id: app.id, slug: app.slug, name: app.name };
  const revision = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, {
    token: key,
    body: {
      permissions: [
        { scope: 'tasks:read', reason: 'Links notes to tasks' },
        { scope: 'files:write', reason: 'Attaches the minutes as a PDF' },
      ],
    },
  });
  if (revision.status !== 201) throw new Error(`revision failed: ${revision.status}`);
  clean = await pendingApp('Quiet Ledger');
  broken = await pendingApp('Meeting Notez', true);
  extraA = await pendingApp('Invoice Robot');
  extraB = await pendingApp('Shift Planner');
  reviewer = await createAdminAccount(t, 'reviewer');
  server = listen(t);
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await page.goto(url('/admin'));
  await page.getByLabel('Email').fill(reviewer.email);
  await page.getByLabel('Password').fill(reviewer.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(url('/admin'));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
  await images?.stop();
}, 30_000);

const claimsOf = (appId: string) =>
  t.sql<{ admin_id: string }>(`select admin_id from review_claims where subject = 'app:' || ? and expires_at > now()`, [appId]);
const statusOf = async (appId: string) => (await t.sql<{ status: string }>('select status from apps where id = ?', [appId]))[0]!.status;

/** Elements wider than the element that contains them, and containers that scroll sideways (runs in the page). */
const OVERFLOW = `(() => {
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
  const found = [];
  if (document.documentElement.scrollWidth > window.innerWidth) found.push('page scrolls sideways');
  for (const e of document.querySelectorAll('main *')) {
    // Inside a chart, shapes are drawn in the SVG's own coordinates: the svg itself is what must fit.
    if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') continue;
    const box = e.getBoundingClientRect();
    if (box.width === 0 || getComputedStyle(e).position === 'fixed') continue;
    const parent = e.parentElement.getBoundingClientRect();
    if (box.right > parent.right + 1 || box.left < parent.left - 1) found.push(name(e) + ' wider than ' + name(e.parentElement));
    if (!['IMG', 'SVG', 'IFRAME'].includes(e.tagName.toUpperCase()) && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible') found.push(name(e) + ' scrolls sideways');
  }
  return found.slice(0, 10);
})()`;

describe('the review queue', () => {
  test('flags an app with unfetchable images and a look-alike name, none for a clean one; filters by flag; shows the stored logo', async () => {
    await page.goto(url('/admin/review'));
    const flagsOf = (id: string) => textOf(page.locator(`#queue-app-${id} td.flags`));
    expect(await flagsOf(broken.id)).toContain('image problems');
    expect(await flagsOf(broken.id)).toContain('look-alike');
    expect((await flagsOf(clean.id)).trim()).toBe('');
    expect(await page.locator(`#queue-app-${clean.id} img.thumb`).getAttribute('src')).toMatch(/^\/admin\/mirror\/[0-9a-f]{64}\.png$/);
    expect(await page.locator(`#queue-app-${broken.id} img.thumb`).count()).toBe(0); // nothing stored, nothing fetched from elsewhere

    await page.getByLabel('Flag').selectOption('images');
    await until(async () => (await page.locator(`#queue-app-${clean.id}`).count()) === 0, 'the filtered queue');
    expect(await page.locator(`#queue-app-${broken.id}`).count()).toBe(1);
    await page.goto(url('/admin/review?flag=lookalike'));
    expect(await page.locator('#review-queue tbody tr').count()).toBe(1);
    expect(await page.locator(`#queue-app-${broken.id}`).count()).toBe(1);
  }, 60_000);
});

describe('layout', () => {
  test('no element is wider than its container at 1280 and 1440 px; statuses read as words', async () => {
    const pages = [
      '/admin',
      '/admin/review',
      `/admin/review/apps/${extraB.id}`,
      `/admin/review/apps/${broken.id}`,
      `/admin/review/revisions/${widened.id}`,
      '/admin/developers',
      `/admin/apps/${extraB.id}`,
    ];
    for (const width of [1280, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of pages) {
        await page.goto(url(path));
        await page.waitForLoadState('load');
        if (path === '/admin') await until(async () => (await textOf(page.locator('#queue-health'))).includes('mail.send'), 'the queue health');
        expect(await page.evaluate<string[]>(OVERFLOW), `${path} at ${width} px`).toEqual([]);
        expect(await textOf(page.locator('main')), path).not.toMatch(/PENDING_VERIFICATION|\bAPPROVED\b|\bPENDING\b/);
        if (path === '/admin/developers') expect(await textOf(page.locator('main'))).toContain('Pending verification');
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(url(`/admin/review/revisions/${widened.id}`));
    const wording = await textOf(page.locator('#review'));
    expect(wording).not.toMatch(/Revision \d|revision version/);
  }, 120_000);
});

describe('a revision that asks for new permissions', () => {
  test('is flagged in the queue; its review page shows the added scopes and reasons above the buttons; approval makes them public', async () => {
    await page.goto(url('/admin/review'));
    const row = page.locator(`#queue-revision-${widened.id}`);
    expect(await textOf(row.locator('td.flags'))).toContain('new permissions');

    await row.getByRole('link', { name: widened.name }).click();
    await page.waitForURL(new RegExp(`/admin/review/revisions/${widened.id}`));
    const warning = page.locator('#new-permissions');
    const shown = await textOf(warning);
    expect(shown).toContain('Attach, change and delete files');
    expect(shown).toContain('files:write');
    expect(shown).toContain('Attaches the minutes as a PDF');
    expect(shown).not.toContain('tasks:read'); // already public: not new
    const approve = page.getByRole('button', { name: 'Approve', exact: true });
    expect(await top(warning)).toBeLessThan(await top(approve));

    const before = await t.call('GET', `/api/apps/${widened.slug}`);
    expect(before.body.permissions.map((p: { scope: string }) => p.scope)).toEqual(['tasks:read']);
    await page.getByLabel('I have checked the warnings').check();
    await approve.click();
    await until(async () => (await textOf(page.locator('main'))).includes('is approved'), 'the approved revision');
    const after = await t.call('GET', `/api/apps/${widened.slug}`);
    expect(after.body.permissions.map((p: { scope: string; label: string }) => [p.scope, p.label])).toEqual([
      ['tasks:read', 'See your tasks'],
      ['files:write', 'Attach, change and delete files'],
    ]);
  }, 60_000);
});

describe('claims are explicit', () => {
  test('opening a page claims nothing; "Start review" claims; "Release" releases', async () => {
    await page.goto(url(`/admin/review/apps/${clean.id}`));
    expect(await textOf(page.locator('#claim'))).toContain('Nobody is reviewing this');
    expect(await claimsOf(clean.id)).toEqual([]);
    await page.getByRole('button', { name: 'Start review' }).click();
    await until(async () => (await textOf(page.locator('#claim'))).includes('You are reviewing this'), 'the claim');
    expect((await claimsOf(clean.id)).map((c) => c.admin_id)).toEqual([reviewer.id]);
    await page.getByRole('button', { name: 'Release' }).click();
    await until(async () => (await textOf(page.locator('#claim'))).includes('Nobody is reviewing this'), 'the release');
    expect(await claimsOf(clean.id)).toEqual([]);
  }, 60_000);
});

describe('warnings stand above the decision', () => {
  test('approving past them needs the tick: refused without it (nothing changes), accepted with it, and the override is audited', async () => {
    await page.goto(url(`/admin/review/apps/${broken.id}`));
    const warnings = page.locator('#warnings');
    expect(await textOf(warnings)).toContain('Image problems');
    expect(await textOf(warnings)).toContain('Look-alike names');
    expect(await top(warnings)).toBeLessThan(await top(page.getByRole('button', { name: 'Approve', exact: true })));

    await page.getByRole('button', { name: 'Start review' }).click();
    await until(async () => (await claimsOf(broken.id)).length === 1, 'the claim');
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await until(async () => (await textOf(page.locator('#decision'))).includes('I have checked the warnings'), 'the refusal');
    expect(await textOf(page.locator('#decision .notice-error'))).toContain('Tick "I have checked the warnings"');
    expect(await statusOf(broken.id)).toBe('PENDING');
    expect(await t.sql(`select 1 from audit_log where subject_id = ? and action = 'app.approve'`, [broken.id])).toEqual([]);

    await page.getByLabel('I have checked the warnings').check();
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await until(async () => (await textOf(page.locator('#review'))).includes('is approved'), 'the approval');
    expect(await statusOf(broken.id)).toBe('APPROVED');
    const [audit] = await t.sql<{ after: { warningsOverridden: string[] } }>(
      `select after from audit_log where subject_id = ? and action = 'app.approve'`,
      [broken.id],
    );
    expect(audit!.after.warningsOverridden.join(' | ')).toMatch(/image problems: .*\| look-alike names: Meeting Notes/);
    expect(await claimsOf(broken.id)).toEqual([]); // deciding released the claim
  }, 60_000);
});

describe('keyboard shortcuts', () => {
  test('listed on the page; r focuses the reason, keys typed there do nothing; j/k move through the queue; n opens the next unclaimed; a approves', async () => {
    const decisions: string[] = [];
    page.on('request', (request) => {
      if (/\/(approve|reject)$/.test(request.url())) decisions.push(request.url());
    });
    await page.goto(url(`/admin/review/apps/${extraA.id}`));
    expect(await textOf(page.locator('.queue-nav .shortcuts'))).toMatch(
      /a\s*approve.*r\s*write a rejection.*n\s*next unclaimed.*j\s*next.*k\s*previous/,
    );

    await page.keyboard.press('r');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('reason');
    await page.keyboard.type('a note with a, r, n, j and k');
    expect(await page.locator('#reason').inputValue()).toBe('a note with a, r, n, j and k');
    expect(page.url()).toBe(url(`/admin/review/apps/${extraA.id}`));
    expect(decisions).toEqual([]);
    expect(await statusOf(extraA.id)).toBe('PENDING');

    await page.locator('h1').click(); // out of the text field
    await page.keyboard.press('j');
    await page.waitForURL(url(`/admin/review/apps/${extraB.id}`));
    await page.keyboard.press('k');
    await page.waitForURL(url(`/admin/review/apps/${extraA.id}`));
    await page.keyboard.press('n');
    await page.waitForURL((target) => /\/admin\/review\/(apps|revisions)\//.test(target.pathname) && !target.pathname.endsWith(extraA.id));

    await page.goto(url(`/admin/review/apps/${clean.id}`));
    await page.keyboard.press('a');
    // htmx swaps the outcome into the review panel; a key pressed before htmx took over the form posts
    // it plainly, and the outcome comes back as the next page's notice. Either way the page says so.
    await until(async () => (await textOf(page.locator('main'))).includes(`"${clean.name}" is approved.`), 'the approval by key');
    expect(await statusOf(clean.id)).toBe('APPROVED');
  }, 60_000);
});

describe('"& next"', () => {
  test('"Approve & next" decides and opens the next unclaimed pending item of the filter', async () => {
    await page.goto(url(`/admin/review/apps/${extraA.id}?kind=app`));
    await page.getByRole('button', { name: 'Approve & next' }).click();
    await page.waitForURL(url(`/admin/review/apps/${extraB.id}?kind=app`));
    expect(await statusOf(extraA.id)).toBe('APPROVED');
    expect(await statusOf(extraB.id)).toBe('PENDING');
    expect(await textOf(page.locator('main'))).toContain('"Invoice Robot" is approved.');
    expect(await page.locator('#decision').count()).toBe(1);

    await page.getByLabel('Reason', { exact: true }).fill('Please describe the data the app keeps.');
    await page.getByRole('button', { name: 'Reject & next' }).click();
    await page.waitForURL(url('/admin/review?kind=app'));
    expect(await statusOf(extraB.id)).toBe('REJECTED');
    expect(await textOf(page.locator('main'))).toContain('Nothing else unclaimed waits in this filter.');
  }, 60_000);
});

describe('the console stays within its Content Security Policy', () => {
  test('no violation was reported', () => {
    expect(violations).toEqual([]);
  });
});
