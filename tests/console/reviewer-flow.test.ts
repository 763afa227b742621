import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { createTestApp, listen, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp, completeApp, registerClient } from '../apps/fixtures.ts';
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
/** An approved app whose pending revision asks for a scope it did not have. */
let widened: { id: string; slug: string; name: string };
const violations: string[] = [];

const url = (path: string) => `${server.baseUrl}${path}`;
const textOf = async (locator: Locator) => (await locator.textContent()) ?? '';
const top = async (locator: Locator) => (await locator.boundingBox())!.y;

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

beforeAll(async () => {
  t = await createTestApp();
  const developer = await registerDeveloper(t, { name: 'Ada Builder' });
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
}, 30_000);

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
    await approve.click();
    await until(async () => (await textOf(page.locator('main'))).includes('is approved'), 'the approved revision');
    const after = await t.call('GET', `/api/apps/${widened.slug}`);
    expect(after.body.permissions.map((p: { scope: string; label: string }) => [p.scope, p.label])).toEqual([
      ['tasks:read', 'See your tasks'],
      ['files:write', 'Attach, change and delete files'],
    ]);
  }, 60_000);
});

describe('the console stays within its Content Security Policy', () => {
  test('no violation was reported', () => {
    expect(violations).toEqual([]);
  });
});
