import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { createTestApp, listen, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { completeApp, createApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { buildWorld, deadStatsJob, submit, type World } from './world.ts';
import { createAdminAccount, type AdminAccount } from './support.ts';
import { launchBrowser } from './browser.ts';

/**
 * The console in a real browser (the system Chromium): every "done when" action, each effect
 * checked through the public or developer API, a hostile listing rendered inert on every page
 * that shows it, no CSP violation anywhere, and the same console with JavaScript off.
 */
const HOSTILE_NAME = '<img src=x onerror=alert(1)>';
const HOSTILE_MARKDOWN = [
  'Totally safe. <script>alert(2)</script>',
  '',
  '[Click me](javascript:alert(3)) and <a href="javascript:alert(4)">this</a>.',
  '',
  '<img src=x onerror=alert(5)>',
].join('\n');

let t: TestApp;
let server: ReturnType<typeof listen>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let world: World;
let owner: AdminAccount;
let hostile: { id: string; slug: string };
let extraDeveloper: TestDeveloper;
let extraKey: string;
/** Alerts (an XSS would raise one) and CSP violations the browser reported. */
const alerts: string[] = [];
const violations: string[] = [];

const url = (path: string) => `${server.baseUrl}${path}`;

function watch(target: Page) {
  target.on('dialog', (dialog) => {
    if (dialog.type() === 'confirm') return void dialog.accept();
    alerts.push(`${dialog.type()}: ${dialog.message()}`);
    return void dialog.dismiss();
  });
  target.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const textOf = async (locator: Locator) => (await locator.textContent()) ?? '';

async function signIn(target: Page, account: AdminAccount) {
  await target.goto(url('/admin'));
  await target.getByLabel('Email').fill(account.email);
  await target.getByLabel('Password').fill(account.password);
  await target.getByRole('button', { name: 'Sign in' }).click();
  await target.waitForURL(url('/admin'));
}

beforeAll(async () => {
  t = await createTestApp();
  world = await buildWorld(t);
  hostile = await submit(
    t,
    world.key,
    (
      await createApp(
        t,
        world.key,
        completeApp({
          name: HOSTILE_NAME,
          description: `${HOSTILE_NAME} "quoted" & more`,
          longDescription: HOSTILE_MARKDOWN,
          reviewNotes: '<script>alert(6)</script>',
        }),
      )
    ).id,
  );
  extraDeveloper = await registerDeveloper(t, { name: 'Eve Extra' });
  extraKey = await mintKey(t, extraDeveloper);
  owner = await createAdminAccount(t, 'owner');
  server = listen(t);
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  watch(page);
  await signIn(page, owner);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.close();
});

describe('the console in a browser', () => {
  test('dashboard: backlogs against targets, the installs and uninstalls chart, and a queue-health widget that polls', async () => {
    // The widget polls every 10 s: a page of its own (same session) has its clock moved on instead of waiting.
    const clocked = await browser.newContext({ storageState: await context.storageState() });
    try {
      const dashboard = await clocked.newPage();
      watch(dashboard);
      await dashboard.clock.install();
      await dashboard.goto(url('/admin'));
      expect(await textOf(dashboard.locator('.cards'))).toContain('Developers awaiting verification');
      // A day's installs above the axis and its uninstalls below it, for each of the 30 days.
      expect(await dashboard.locator('figure.chart svg rect.bar:not(.down)').count()).toBe(30);
      expect(await dashboard.locator('figure.chart svg rect.bar.down').count()).toBe(30);
      await dashboard.evaluate("document.querySelector('#queue-health').textContent = 'before the poll'");
      const polled = dashboard.waitForResponse((response) => response.url().endsWith('/admin/queue-health'), { timeout: 15_000 });
      await dashboard.clock.fastForward(10_000);
      expect((await polled).status()).toBe(200);
      await until(async () => (await textOf(dashboard.locator('#queue-health'))).includes('mail.send'), 'the swapped widget');
    } finally {
      await clocked.close();
    }
  }, 30_000);

  test('the search box narrows a list as one types, and the URL follows', async () => {
    await page.goto(url('/admin/developers'));
    expect(await page.locator('#developers tbody tr').count()).toBeGreaterThan(2);
    await page.getByLabel('Search').pressSequentially('Eve', { delay: 20 });
    await until(async () => (await page.locator('#developers tbody tr').count()) === 1, 'the filtered list');
    expect(await textOf(page.locator('#developers tbody'))).toContain('Eve Extra');
    await until(async () => /\/admin\/developers\?(.*&)?q=Eve(&|$)/.test(page.url()), 'the pushed URL');
  }, 30_000);

  test('verify a developer: the row swaps in place, and the developer can now mint API keys', async () => {
    const before = await t.call('POST', '/api/dev/api-keys', { token: world.pendingDeveloper.oauthToken, body: { name: 'k', scopes: ['APP_READ'] } });
    expect(before.status).toBe(403);
    await page.goto(url('/admin/developers?status=PENDING_VERIFICATION'));
    const row = page.locator(`#developer-${world.pendingDeveloper.id}`);
    await row.getByRole('button', { name: 'Verify' }).click();
    await until(async () => (await textOf(page.locator(`#developer-${world.pendingDeveloper.id}`))).includes('Verified'), 'the verified row');
    expect(page.url()).toBe(url('/admin/developers?status=PENDING_VERIFICATION')); // swapped, not reloaded
    const after = await t.call('POST', '/api/dev/api-keys', { token: world.pendingDeveloper.oauthToken, body: { name: 'k', scopes: ['APP_READ'] } });
    expect(after.status).toBe(201);
  }, 30_000);

  test('suspend a developer after confirming: their keys stop working', async () => {
    expect((await t.call('GET', '/api/dev/me', { token: extraKey })).status).toBe(200);
    await page.goto(url(`/admin/developers/${extraDeveloper.id}`));
    await page.locator('#developer-actions').getByRole('button', { name: 'Suspend' }).click();
    await until(async () => (await textOf(page.locator('#developer-actions'))).includes('Suspended'), 'the suspended panel');
    expect((await t.call('GET', '/api/dev/me', { token: extraKey })).status).toBe(401);
  }, 30_000);

  test('approve an app from the review queue: it is public at once', async () => {
    expect((await t.call('GET', `/api/apps/${world.pending.slug}`)).status).toBe(404);
    await page.goto(url('/admin/review'));
    await page.getByRole('link', { name: world.pending.name }).click();
    await page.waitForURL(url(`/admin/review/apps/${world.pending.id}`));
    expect(await textOf(page.locator('#claim'))).toContain('Nobody is reviewing this');
    await page.getByRole('button', { name: 'Start review' }).click();
    await until(async () => (await textOf(page.locator('#claim'))).includes('You are reviewing this'), 'the claim');
    const tick = page.getByLabel('I have checked the warnings');
    if (await tick.count()) await tick.check(); // the example.com images cannot be fetched here
    await page.getByRole('button', { name: 'Approve', exact: true }).click();
    await until(async () => (await textOf(page.locator('#review'))).includes('is approved'), 'the decided review');
    const listing = await t.call('GET', `/api/apps/${world.pending.slug}`);
    expect(listing.status).toBe(200);
    expect(listing.body.name).toBe(world.pending.name);
  }, 30_000);

  test('reject an app with reasons: the developer API returns them as rejectionReason', async () => {
    await page.goto(url(`/admin/review/apps/${world.resubmitted.id}`));
    expect(await textOf(page.locator('#diff'))).toContain('Syncs your calendars both ways.');
    await page.getByLabel('The privacy policy is missing or does not cover the data the app uses.').check();
    await page.getByLabel('Reason', { exact: true }).fill('Please link your privacy policy.');
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    await until(async () => (await textOf(page.locator('#review'))).includes('is rejected'), 'the decided review');
    const view = (await t.call('GET', `/api/dev/apps/${world.resubmitted.id}`, { token: world.key })).body;
    expect(view.status).toBe('REJECTED');
    expect(view.rejectionReason).toBe('- The privacy policy is missing or does not cover the data the app uses.\nPlease link your privacy policy.');
  }, 30_000);

  test('feature an app: it appears in the featured list', async () => {
    await page.goto(url(`/admin/apps?q=${encodeURIComponent(world.approved.name)}`));
    const row = page.locator(`#app-${world.approved.id}`);
    await row.getByRole('button', { name: 'Feature' }).click();
    await until(async () => (await textOf(page.locator(`#app-${world.approved.id}`))).includes('Featured'), 'the featured row');
    const featured = await t.call('GET', '/api/apps/featured/list');
    expect(featured.body.data.map((app: { slug: string }) => app.slug)).toContain(world.approved.slug);
  }, 30_000);

  test('support edit of an approved app: the public listing changes', async () => {
    await page.goto(url(`/admin/apps/${world.approved.id}`));
    await page.getByLabel('Description', { exact: true }).fill('Boards, lanes and cards for every team.');
    await page.getByLabel('Support URL').fill('https://help.board.example.com');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await until(async () => (await textOf(page.locator('#app-page'))).includes('Saved: Description, Support URL.'), 'the saved edit');
    const listing = (await t.call('GET', `/api/apps/${world.approved.slug}`)).body;
    expect(listing.description).toBe('Boards, lanes and cards for every team.');
    expect(listing.supportUrl).toBe('https://help.board.example.com');
  }, 30_000);

  test('register an OAuth client: the developer can then name it on an app', async () => {
    await page.goto(url('/admin/oauth-clients'));
    await page.getByLabel('Developer (e-mail or id)').fill(world.developer.email);
    await page.getByLabel('Client id').fill('board-web');
    await page.getByLabel('Client name').fill('Task Board web');
    await page.getByRole('button', { name: 'Register client' }).click();
    await until(async () => (await textOf(page.locator('#oauth-clients-page'))).includes('Registered board-web'), 'the registered client');
    const created = await t.call('POST', '/api/dev/apps', { token: world.key, body: completeApp({ oauthClientId: 'board-web' }) });
    expect(created.status).toBe(201);
    expect(created.body.oauthClientId).toBe('board-web');
  }, 30_000);

  test('hide a review: it leaves the public list and the rating', async () => {
    await eventually(async () => (await t.call('GET', `/api/apps/${world.approved.slug}`)).body.reviewCount === 1);
    await page.goto(url('/admin/reviews'));
    await page.locator(`#review-${world.reviewId}`).getByRole('button', { name: 'Hide' }).click();
    await until(async () => (await textOf(page.locator(`#review-${world.reviewId}`))).includes('Hidden'), 'the hidden row');
    expect((await t.call('GET', `/api/apps/${world.approved.slug}/reviews`)).body.pagination.total).toBe(0);
    await eventually(async () => (await t.call('GET', `/api/apps/${world.approved.slug}`)).body.reviewCount === 0);
  }, 30_000);

  test('retry a dead job: the install it counted reaches the public count', async () => {
    await t.sql(`insert into installs (app_id, installer) values (?, 'user:counted-late')`, [world.approved.id]);
    const jobId = await deadStatsJob(t);
    const before = (await t.call('GET', `/api/apps/${world.approved.slug}`)).body.installCount;
    await page.goto(url('/admin/jobs'));
    await page.locator(`#dead-${jobId}`).getByRole('button', { name: 'Retry' }).click();
    await until(async () => (await textOf(page.locator(`#dead-${jobId}`))).includes('Re-enqueued'), 'the retried row');
    await eventually(async () => (await t.call('GET', `/api/apps/${world.approved.slug}`)).body.installCount === before + 1);
  }, 30_000);

  test('the outbox previews a message in a sandboxed frame', async () => {
    await page.goto(url('/admin/jobs/outbox'));
    await page.getByRole('link', { name: 'Your developer account is verified' }).first().click();
    const frame = page.frameLocator('iframe.preview');
    await until(async () => (await frame.locator('body').textContent())?.includes('verified your developer account') ?? false, 'the preview');
    expect(await page.locator('iframe.preview').getAttribute('sandbox')).toBe('');
  }, 30_000);

  test('a hostile listing renders inert on every console page that shows it', async () => {
    const pages = [
      '/admin/review',
      `/admin/review/apps/${hostile.id}`,
      `/admin/apps?q=${encodeURIComponent('<img')}`,
      '/admin/apps',
      `/admin/apps/${hostile.id}`,
      `/admin/developers/${world.developer.id}`,
    ];
    for (const path of pages) {
      await page.goto(url(path));
      await page.waitForLoadState('load');
      // Runs in the page (a string: this project's types have no DOM).
      const shown = await page.evaluate<{ text: string; onerror: number; scripts: (string | null)[]; javascriptLinks: number }>(`({
        text: document.body.innerText,
        onerror: document.querySelectorAll('[onerror]').length,
        scripts: [...document.scripts].map((s) => s.getAttribute('src')),
        javascriptLinks: [...document.querySelectorAll('[href], [src], [action]')].filter((e) =>
          /^\\s*javascript:/i.test(e.getAttribute('href') ?? e.getAttribute('src') ?? e.getAttribute('action') ?? ''),
        ).length,
      })`);
      expect(shown.text, path).toContain(HOSTILE_NAME);
      expect(shown.onerror, path).toBe(0);
      expect(shown.javascriptLinks, path).toBe(0);
      expect(
        shown.scripts.every((src) => src?.startsWith('/admin/assets/')),
        path,
      ).toBe(true);
    }
    // The rendered Markdown shows the hostile parts as text: no script element, no link, no image.
    await page.goto(url(`/admin/review/apps/${hostile.id}`));
    const markdown = page.locator('.markdown');
    expect(await textOf(markdown)).toContain('Totally safe. <script>alert(2)</script>');
    expect(await markdown.locator('script, img, a').count()).toBe(0);
    expect(await textOf(page.locator('.prewrap').first())).toContain('<script>alert(6)</script>');
    await Bun.sleep(200); // give any injected handler its chance to fire
    expect(alerts).toEqual([]);
  }, 30_000);

  test('nothing violated the Content Security Policy', () => {
    expect(violations).toEqual([]);
  });
});

describe('with JavaScript off', () => {
  test('forms post and redirect; a destructive action asks on a page of its own; the effect is public', async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    try {
      const noScript = await plain.newPage();
      watch(noScript);
      await signIn(noScript, owner);
      await noScript.goto(url(`/admin/apps/${world.pending.id}`));
      await noScript.locator('#app-actions').getByRole('button', { name: 'Suspend' }).click();
      await noScript.waitForURL(url(`/admin/apps/${world.pending.id}/suspend`));
      expect(await textOf(noScript.locator('main'))).toContain('Suspend this app?');
      await noScript.getByRole('button', { name: 'Yes, go ahead' }).click();
      await noScript.waitForURL(url(`/admin/apps/${world.pending.id}`));
      expect(await textOf(noScript.locator('.notice-ok'))).toContain('is suspended');
      expect((await t.call('GET', `/api/apps/${world.pending.slug}`)).status).toBe(410);

      // Search and filters are a plain GET form.
      await noScript.goto(url('/admin/developers'));
      await noScript.getByLabel('Search').fill('Grace');
      await noScript.getByRole('button', { name: 'Filter' }).click();
      await noScript.waitForURL(/\/admin\/developers\?q=Grace/);
      expect(await noScript.locator('#developers tbody tr').count()).toBe(1);
    } finally {
      await plain.close();
    }
  }, 30_000);
});
