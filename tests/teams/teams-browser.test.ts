import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { createTestApp, listen, type TestApp } from '../support/harness.ts';
import { approvedApp, completeApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { createAdminAccount } from '../console/support.ts';
import { launchBrowser } from '../console/browser.ts';
import { createTeam, member } from './team-fixtures.ts';

let t: TestApp;
let server: ReturnType<typeof listen>;
let browser: Browser;
let page: Page;
const alerts: string[] = [];

// The machine is shared: a service, a browser and a team take a while to set up.
setDefaultTimeout(60_000);
beforeAll(async () => {
  t = await createTestApp();
  server = listen(t);
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
  page.on('dialog', (dialog) => {
    if (dialog.type() === 'confirm') return void dialog.accept();
    alerts.push(dialog.message());
    return void dialog.dismiss();
  });
  const admin = await createAdminAccount(t, 'support');
  await page.goto(`${server.baseUrl}/admin`);
  await page.getByLabel('Email').fill(admin.email);
  await page.getByLabel('Password').fill(admin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${server.baseUrl}/admin`);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t.close();
}, 60_000);

test('in Chromium: find a team, open it, suspend it after confirming (its app is 410), reinstate it', async () => {
  const owner = await member(t);
  const team = await createTeam(t, owner, { name: 'Gridline <img src=x onerror=alert(1)> Studio' });
  const app = (await approvedApp(t, owner.key, completeApp({ teamId: team.id }))) as { slug: string };

  await page.getByRole('link', { name: 'Teams' }).click();
  await page.getByRole('searchbox').fill('Gridline');
  await page.getByRole('searchbox').press('Enter');
  await page.getByRole('link', { name: team.name }).click();
  await page.waitForURL(`${server.baseUrl}/admin/teams/${team.id}`);
  expect(await page.locator('#team-apps').textContent()).toContain(app.slug);

  await page.locator('#team-actions').getByRole('button', { name: 'Suspend' }).click();
  await eventually(async () => ((await page.locator('#team-actions').textContent()) ?? '').includes('Suspended'));
  await eventually(async () => (await t.call('GET', `/api/apps/${app.slug}`)).status === 410);

  await page.locator('#team-actions').getByRole('button', { name: 'Reinstate' }).click();
  await eventually(async () => ((await page.locator('#team-actions').textContent()) ?? '').includes('Active'));
  await eventually(async () => (await t.call('GET', `/api/apps/${app.slug}`)).status === 200);
  expect(alerts).toEqual([]);
});
