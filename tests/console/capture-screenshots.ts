/**
 * Regenerates the README's console screenshots (docs/screenshots/*.png) from a seeded service:
 *
 *   bun tests/console/capture-screenshots.ts
 *
 * It starts its own embedded PostgreSQL, a local image server for logos and screenshots, the
 * service and the system Chromium, and leaves nothing behind.
 */
import { deflateSync } from 'node:zlib';
import { join } from 'node:path';
import { startTestDatabase, stopTestDatabase } from '../support/database.ts';
import { createTestApp, listen, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import { assetChecksSettled, deps } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { createAdminAccount } from './support.ts';
import { submit } from './world.ts';
import { launchBrowser } from './browser.ts';
import { pngChunk } from '../assets/images.ts';

const OUT = join(import.meta.dir, '..', '..', 'docs', 'screenshots');
const HOUR = 3_600_000;

type Rgb = [number, number, number];

/** A truecolour PNG made of rectangles: enough for a logo or an app screenshot. */
function picture(width: number, height: number, background: Rgb, boxes: { x: number; y: number; w: number; h: number; color: Rgb }[]): Uint8Array {
  const row = width * 3 + 1;
  const pixels = new Uint8Array(row * height);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) pixels.set(background, y * row + 1 + x * 3);
  }
  for (const box of boxes) {
    for (let y = box.y; y < Math.min(height, box.y + box.h); y += 1) {
      for (let x = box.x; x < Math.min(width, box.x + box.w); x += 1) pixels.set(box.color, y * row + 1 + x * 3);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2; // truecolour
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      pngChunk('IHDR', header),
      pngChunk('IDAT', deflateSync(pixels)),
      pngChunk('IEND', new Uint8Array()),
    ]),
  );
}

const PALETTE: Rgb[] = [
  [36, 87, 197],
  [26, 127, 55],
  [180, 35, 24],
  [154, 103, 0],
  [111, 66, 193],
  [14, 116, 144],
];

function images() {
  const cache = new Map<string, Uint8Array>();
  const make = (path: string): Uint8Array | null => {
    const match = path.match(/^\/(logo|shot|banner)\/(\d)\.png$/);
    if (!match) return null;
    const color = PALETTE[Number(match[2]) % PALETTE.length]!;
    const light: Rgb = [color[0] / 4 + 190, color[1] / 4 + 190, color[2] / 4 + 190];
    if (match[1] === 'logo')
      return picture(512, 512, color, [
        { x: 140, y: 140, w: 232, h: 232, color: [255, 255, 255] },
        { x: 190, y: 190, w: 132, h: 132, color },
      ]);
    if (match[1] === 'banner') return picture(1200, 600, light, [{ x: 0, y: 420, w: 1200, h: 180, color }]);
    return picture(
      1280,
      720,
      [246, 247, 250],
      [
        { x: 0, y: 0, w: 1280, h: 72, color },
        { x: 40, y: 120, w: 360, h: 540, color: light },
        { x: 440, y: 120, w: 360, h: 260, color: light },
        { x: 440, y: 400, w: 360, h: 260, color: light },
        { x: 840, y: 120, w: 400, h: 540, color: light },
      ],
    );
  };
  return Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      const body = cache.get(path) ?? make(path);
      if (!body) return new Response('not found', { status: 404 });
      cache.set(path, body);
      return new Response(body, { headers: { 'content-type': 'image/png' } });
    },
  });
}

async function seed(t: TestApp, imageBase: string) {
  const listing = (name: string, description: string, color: number, extra: Record<string, unknown> = {}) => ({
    name,
    description,
    category: 'PRODUCTIVITY',
    environment: 'staging',
    logoUrl: `${imageBase}/logo/${color}.png`,
    bannerUrl: `${imageBase}/banner/${color}.png`,
    screenshots: [
      { url: `${imageBase}/shot/${color}.png`, caption: 'The board view' },
      { url: `${imageBase}/shot/${(color + 1) % 6}.png`, caption: 'Reports' },
    ],
    websiteUrl: 'https://example.com',
    ...extra,
  });
  const names = ['Northwind Labs', 'Ada Builder', 'Kanban Co', 'Grace Hopper', 'Timely GmbH', 'Orbit Apps', 'Linus Tools', 'Mira Data'];
  const developers = [];
  for (const [i, name] of names.entries()) {
    const developer = await registerDeveloper(t, { name, verified: i >= 3 });
    await t.sql('update developers set created_at = ?, company_name = ? where id = ?', [
      new Date(Date.now() - (i < 3 ? [30, 20, 2][i]! : 200 + i) * HOUR).toISOString(),
      i % 2 ? `${name.split(' ')[0]} Inc.` : null,
      developer.id,
    ]);
    developers.push(developer);
  }
  const key = await mintKey(t, developers[3]!);
  const titles: [string, string][] = [
    ['Focus Timer', 'Pomodoro sessions for your tasks.'],
    ['Task Board', 'Kanban boards for every team.'],
    ['Calendar Sync', 'Two-way sync with your calendars.'],
    ['Standup Bot', 'Daily standups without the meeting.'],
    ['Time Reports', 'Where the week went, per project.'],
    ['Invoice Maker', 'Bill tracked time in two clicks.'],
  ];
  const approved = [];
  for (const [i, [name, description]] of titles.entries()) {
    const longDescription = 'Plan work on boards.\nDrag tasks between columns.\nReports every Friday.';
    const disclosure = {
      permissions: [{ scope: 'tasks:read', reason: 'Shows your tasks on the board' }],
      dataHandling: { storesUserData: true, locations: ['EU'], thirdParties: [], retentionDays: 30 },
    };
    const created = (
      await t.call('POST', '/api/dev/apps', {
        token: key,
        body: listing(name, description, i, { category: i % 2 ? 'BUSINESS' : 'PRODUCTIVITY', longDescription, ...disclosure }),
      })
    ).body;
    await submit(t, key, created.id);
    // Storing the fetched images moves the version (a reviewer decides on what they saw): approve the settled one.
    await assetChecksSettled(t, created.id);
    const [row] = await t.sql<{ version: number }>('select version from apps where id = ?', [created.id]);
    await decideApp(deps(t), created.id, 'approve', { actor: CLI_ACTOR, version: row!.version });
    approved.push(created);
  }
  // Installs over the last 30 days, more lately.
  for (const [i, app] of approved.entries()) {
    await t.sql(
      `insert into installs (app_id, installer, installed_at)
       select ?, 'installation:' || ? || '-' || g, now() - make_interval(hours => (g * 7 + ?) % 720)
       from generate_series(1, ?) g`,
      [app.id, i, i * 13, 40 + i * 25],
    );
  }
  // Every seventh installation is removed a day later (never in the future).
  await t.sql(
    `insert into install_events (app_id, installer, seq, kind, counted, occurred_at)
     select app_id, installer, 1, 'UNINSTALL', true, least(now(), installed_at + interval '1 day') from installs where id % 7 = 0`,
  );
  // The dashboard charts the per-day roll-up, which the stats job would fill a moment later.
  await rollUpNewInstalls(t.ctx.orm.em.fork());
  // Waiting for review: one long overdue (and named like an approved app), one fresh whose second
  // screenshot cannot be fetched; and a revision with a real diff that asks for a new permission.
  for (const [i, [name, description, hours]] of (
    [
      ['Focus Timers', 'Pomodoro sessions for all your tasks.', 52],
      ['Meeting Notes', 'Notes that turn into tasks.', 6],
    ] as const
  ).entries()) {
    const body = listing(name, description, i + 3);
    if (i === 1) body.screenshots[1] = { url: `${imageBase}/shot/missing.png`, caption: 'Reports' };
    const created = (await t.call('POST', '/api/dev/apps', { token: key, body })).body;
    await submit(t, key, created.id);
    await t.sql('update apps set submitted_at = now() - make_interval(hours => ?) where id = ?', [hours, created.id]);
  }
  const revised = approved[1]!;
  await t.call('POST', `/api/dev/apps/${revised.id}/revisions`, {
    token: key,
    body: {
      description: 'Kanban boards, swimlanes and WIP limits for every team.',
      longDescription: 'Plan work on boards.\nSwimlanes per team, with WIP limits.\nDrag tasks between columns.\nReports every Friday.',
      websiteUrl: 'https://taskboard.example.com',
      supportUrl: 'https://taskboard.example.com/help',
      permissions: [
        { scope: 'tasks:read', reason: 'Shows your tasks on the board' },
        { scope: 'tasks:write', reason: 'Moves a task when you drag its card' },
      ],
    },
  });
  await t.sql(`update app_revisions set created_at = now() - interval '27 hours' where app_id = ?`, [revised.id]);
  await t.call('PUT', `/api/dev/apps/${approved[0]!.id}`, { token: key, body: {} });
  await eventually(async () => (await t.sql(`select count(*)::int as n from asset_checks`))[0].n >= 20);
  return { revised };
}

await startTestDatabase(undefined);
const imageServer = images();
const t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true' });
try {
  const { revised } = await seed(t, `http://127.0.0.1:${imageServer.port}`);
  const owner = await createAdminAccount(t, 'owner');
  const server = listen(t);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`${server.baseUrl}/admin`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.baseUrl}/admin`);
    await page.screenshot({ path: join(OUT, 'dashboard.png') });
    await page.goto(`${server.baseUrl}/admin/review`);
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: join(OUT, 'review-queue.png') });
    await page.goto(`${server.baseUrl}/admin/review/revisions/${revised.id}`);
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: join(OUT, 'review-revision.png'), fullPage: true });
    await page.goto(`${server.baseUrl}/admin/developers`);
    await page.screenshot({ path: join(OUT, 'developers.png') });
  } finally {
    await browser.close();
    await server.stop();
  }
} finally {
  await t.close();
  imageServer.stop(true);
  await stopTestDatabase();
}
process.stdout.write(`screenshots written to ${OUT}\n`);
