import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { createTestApp, listen, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper, type FixtureApp } from '../support/fixtures.ts';
import { rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import { createAdminAccount, signedIn, type AdminAccount } from './support.ts';
import { launchBrowser } from './browser.ts';

/** The console's charts: 90 days of installs, uninstalls and active installs on the app page; uninstalls on the dashboard. */
setDefaultTimeout(60_000);
let t: TestApp;
let app: FixtureApp;
let quiet: FixtureApp;
let support: AdminAccount;

const utcDay = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await createTestApp();
  const developer = await insertDeveloper(t);
  // A hostile name: the chart carries no names, and the page escapes it.
  app = await insertApp(t, { developerId: developer, name: '<svg onload=alert(1)>' });
  quiet = await insertApp(t, { developerId: developer });
  // 100 days ago (outside the chart) 2 installs; 40 days ago 3 more; 7 days ago one uninstall; today it reinstalls.
  const installAt = (installer: string, daysAgo: number) =>
    t.sql(`insert into installs (app_id, installer, installed_at) values (?, ?, ?)`, [app.id, installer, `${utcDay(daysAgo)}T12:00:00Z`]);
  for (const n of [1, 2]) await installAt(`user:a${n}`, 100);
  for (const n of [1, 2, 3]) await installAt(`user:b${n}`, 40);
  await t.sql(
    `insert into install_events (app_id, installer, seq, kind, counted, occurred_at) values
       (?, 'user:b1', 1, 'UNINSTALL', true, ?), (?, 'user:b1', 2, 'REINSTALL', true, now())`,
    [app.id, `${utcDay(7)}T12:00:00Z`, app.id],
  );
  await rollUpNewInstalls(t.ctx.orm.em.fork());
  support = await createAdminAccount(t, 'support');
});
// Closing waits for the workers' jobs, slow on a loaded machine.
afterAll(() => t.close(), 30_000);

const titles = (page: string) => [...page.matchAll(/<title>([^<]*)<\/title>/g)].map((match) => match[1]!);

describe('app page', () => {
  test("an inline SVG of 90 days: a bar pair and a point of the active line per day, figures in each day's title", async () => {
    const client = await signedIn(t, support);
    const page = await client.get(`/admin/apps/${app.id}`);
    expect(page.status).toBe(200);
    const section = page.text.slice(page.text.indexOf('id="app-activity"'));
    const svg = section.slice(0, section.indexOf('</svg>'));
    expect(svg).toContain('<svg viewBox=');
    const days = titles(svg);
    expect(days).toHaveLength(90);
    expect(days[0]).toStartWith(`${utcDay(89)}: 0 installs, 0 uninstalls, 2 active`);
    expect(days).toContain(`${utcDay(40)}: 3 installs, 0 uninstalls, 5 active`);
    expect(days).toContain(`${utcDay(7)}: 0 installs, 1 uninstall, 4 active`);
    expect(days[89]).toBe(`${utcDay(0)}: 1 install, 0 uninstalls, 5 active`);
    const points = svg.match(/<polyline class="line" points="([^"]+)"/)![1]!.split(' ');
    expect(points).toHaveLength(90);
    expect(section).toContain('4 installs and 1 uninstall in the last 90 days; 5 active at the end');
    // Nothing from elsewhere: no script and no external reference in the chart.
    expect(svg).not.toMatch(/<script|href=|src=/);
    expect(page.text).not.toContain('<svg onload');
  });

  test('an app without activity: 90 empty days, no division by zero', async () => {
    const client = await signedIn(t, support);
    const page = await client.get(`/admin/apps/${quiet.id}`);
    const section = page.text.slice(page.text.indexOf('id="app-activity"'));
    const svg = section.slice(0, section.indexOf('</svg>'));
    expect(titles(svg)).toHaveLength(90);
    expect(svg).not.toMatch(/NaN|Infinity/);
    expect(section).toContain('0 installs and 0 uninstalls in the last 90 days; 0 active at the end');
  });
});

describe('dashboard', () => {
  test('the installs chart shows uninstalls too, per day over 30 days', async () => {
    const client = await signedIn(t, support);
    const page = await client.get('/admin');
    const days = titles(page.text.slice(page.text.indexOf('<h2>Installs and uninstalls</h2>')));
    expect(days).toHaveLength(30);
    expect(days).toContain(`${utcDay(7)}: 0 installs, 1 uninstall`);
    expect(days[29]).toBe(`${utcDay(0)}: 1 install, 0 uninstalls`);
  });
});

describe('in a browser', () => {
  let browser: Browser;
  let server: ReturnType<typeof listen>;
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('the chart draws under the console CSP, with no script or style from anywhere else', async () => {
    server = listen(t);
    browser = await launchBrowser();
    const page = await browser.newPage();
    const violations: string[] = [];
    const foreign: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    page.on('request', (request) => {
      // The listing's own images are shown from their URLs; code must come from the console itself.
      if (!request.url().startsWith(server.baseUrl) && request.resourceType() !== 'image') foreign.push(`${request.resourceType()} ${request.url()}`);
    });
    await page.goto(`${server.baseUrl}/admin`);
    await page.getByLabel('Email').fill(support.email);
    await page.getByLabel('Password').fill(support.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.baseUrl}/admin`);
    await page.goto(`${server.baseUrl}/admin/apps/${app.id}`);
    const chart = page.locator('#app-activity svg');
    const box = await chart.boundingBox();
    expect(box!.width).toBeGreaterThan(200);
    expect(box!.height).toBeGreaterThan(50);
    expect(await page.locator('#app-activity rect.bar.down').count()).toBe(90);
    const line = await page.locator('#app-activity polyline.line').boundingBox();
    expect(line!.width).toBeGreaterThan(box!.width * 0.9);
    expect(violations).toEqual([]);
    expect(foreign).toEqual([]);
  });
});
