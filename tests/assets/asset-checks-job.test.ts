import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ASSET_CHECKS_QUEUE } from '../../src/modules/assets/asset-checks.service.ts';
import { createApp, minimalApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { image, redirect, startImageServer, type ImageServer } from './image-server.ts';
import { gif, jpeg, mirrorOf, png } from './images.ts';
import type { Static } from 'elysia';
import type { AssetCheckView } from '../../src/modules/apps/apps.model.ts';

/** The whole path: the API stores image URLs, the worker fetches them from a local server, the owner reads the results. */
let t: TestApp;
let server: ImageServer;
let key: string;

const LOGO = png(512, 512);
const BANNER = jpeg(1200, 600);
const SHOT_HD = png(1280, 720);
// Its frame header sits behind ~300 KB of metadata, past the first read.
const SHOT_FULL_HD = jpeg(1920, 1080, { padding: 300_000 });
const SHOT_SMALL = png(800, 600);

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true' });
  server = startImageServer({
    '/logo.png': image(LOGO, 'image/png'),
    '/logo-small.png': image(png(300, 300), 'image/png'),
    '/logo-wide.jpg': image(jpeg(800, 600), 'image/jpeg'),
    '/banner.jpg': image(BANNER, 'image/jpeg'),
    '/banner-small.png': image(png(1000, 500), 'image/png'),
    '/shot-hd.png': image(SHOT_HD, 'image/png'),
    '/shot-full-hd.jpg': image(SHOT_FULL_HD, 'image/jpeg'),
    '/shot-small.png': image(SHOT_SMALL, 'image/png'),
    '/shot.gif': image(gif(1280, 720), 'image/gif'),
    '/page.html': () => new Response('<!doctype html><p>Not an image</p>', { headers: { 'content-type': 'text/html' } }),
    '/moved.png': redirect('/shot-hd.png', 301),
  });
  const developer = await registerDeveloper(t);
  key = await mintKey(t, developer);
});

afterAll(async () => {
  await server.stop();
  await t.close();
});

const url = (path: string) => `${server.origin}${path}`;

/** One entry of an owner view's `assetChecks`, as the API documents it. */
type AssetCheck = Static<typeof AssetCheckView>;

const ownerView = async (id: string) => (await t.call('GET', `/api/dev/apps/${id}`, { token: key })).body;

/** Waits until the owner's view shows checks for exactly `fields` (and `ready`, if given, holds). */
const checksFor = (id: string, fields: string[], ready: (checks: AssetCheck[]) => boolean = () => true) =>
  eventually(async () => {
    const checks: AssetCheck[] = (await ownerView(id)).assetChecks;
    const shown = checks.map((check) => check.field).sort();
    return JSON.stringify(shown) === JSON.stringify([...fields].sort()) && ready(checks) ? checks : null;
  });

const byField = (checks: AssetCheck[]) => Object.fromEntries(checks.map(({ checkedAt, ...rest }) => [rest.field, rest]));

const storedRows = (appId: string) =>
  t.sql(`select field, url, ok, format, width, height, problems, sha256, checked_at from asset_checks where app_id = ? order by field`, [appId]);

describe('asset checks job', () => {
  test('conforming images are checked after creation and shown to the owner as ok', async () => {
    const app = await createApp(
      t,
      key,
      minimalApp({
        logoUrl: url('/logo.png'),
        bannerUrl: url('/banner.jpg'),
        screenshots: [
          { url: url('/shot-full-hd.jpg'), order: 2 },
          { url: url('/moved.png'), order: 1 },
        ],
      }),
    );
    // The checks run after the commit, in a job: a quick worker may already be done when the response is read.
    const checks = await checksFor(app.id, ['logoUrl', 'bannerUrl', 'screenshots[0]', 'screenshots[1]']);
    expect(byField(checks)).toEqual({
      logoUrl: {
        field: 'logoUrl',
        url: url('/logo.png'),
        ok: true,
        format: 'png',
        width: 512,
        height: 512,
        problems: [],
        mirrorUrl: mirrorOf(LOGO, 'png'),
      },
      bannerUrl: {
        field: 'bannerUrl',
        url: url('/banner.jpg'),
        ok: true,
        format: 'jpg',
        width: 1200,
        height: 600,
        problems: [],
        mirrorUrl: mirrorOf(BANNER, 'jpg'),
      },
      // Indexed in display order; a redirect is followed to the image.
      'screenshots[0]': {
        field: 'screenshots[0]',
        url: url('/moved.png'),
        ok: true,
        format: 'png',
        width: 1280,
        height: 720,
        problems: [],
        mirrorUrl: mirrorOf(SHOT_HD, 'png'),
      },
      'screenshots[1]': {
        field: 'screenshots[1]',
        url: url('/shot-full-hd.jpg'),
        ok: true,
        format: 'jpg',
        width: 1920,
        height: 1080,
        problems: [],
        mirrorUrl: mirrorOf(SHOT_FULL_HD, 'jpg'),
      },
    });
    for (const check of checks) expect(Number.isNaN(Date.parse(check.checkedAt))).toBe(false);
  });

  test('each image that breaks a rule or cannot be read gets readable problems', async () => {
    const app = await createApp(
      t,
      key,
      minimalApp({
        logoUrl: url('/logo-small.png'),
        bannerUrl: url('/banner-small.png'),
        screenshots: [
          { url: url('/shot.gif') },
          { url: url('/shot-small.png') },
          { url: url('/nowhere.png') },
          { url: url('/page.html') },
          { url: url('/logo-wide.jpg') },
        ],
      }),
    );
    const checks = byField(await checksFor(app.id, ['logoUrl', 'bannerUrl', ...[0, 1, 2, 3, 4].map((i) => `screenshots[${i}]`)]));
    expect(checks.logoUrl).toMatchObject({
      ok: false,
      format: 'png',
      width: 300,
      height: 300,
      problems: ['logo must be at least 512x512 (got 300x300)'],
    });
    expect(checks.bannerUrl).toMatchObject({ ok: false, format: 'png', problems: ['banner must be 1200x600 (got 1000x500)'] });
    expect(checks['screenshots[0]']).toMatchObject({
      ok: false,
      format: 'gif',
      width: 1280,
      height: 720,
      problems: ['format must be PNG or JPG (got gif)'],
    });
    expect(checks['screenshots[1]']).toMatchObject({ ok: false, problems: ['screenshot must be at least 1280x720 (got 800x600)'] });
    expect(checks['screenshots[2]']).toEqual({
      field: 'screenshots[2]',
      url: url('/nowhere.png'),
      ok: false,
      format: null,
      width: null,
      height: null,
      problems: ['could not fetch: bad status 404'],
      mirrorUrl: null,
    });
    expect(checks['screenshots[3]']).toMatchObject({ ok: false, format: null, problems: ['not a readable image (PNG or JPG expected)'] });
    expect(checks['screenshots[4]']).toMatchObject({ ok: false, format: 'jpg', problems: ['screenshot must be at least 1280x720 (got 800x600)'] });
  });

  test('an edit re-checks: fields no longer listed lose their rows, changed ones are replaced', async () => {
    const app = await createApp(
      t,
      key,
      minimalApp({
        logoUrl: url('/logo-wide.jpg'),
        bannerUrl: url('/banner.jpg'),
        screenshots: [{ url: url('/shot-hd.png') }, { url: url('/shot.gif') }],
      }),
    );
    await checksFor(app.id, ['logoUrl', 'bannerUrl', 'screenshots[0]', 'screenshots[1]']);

    const updated = await t.call('PUT', `/api/dev/apps/${app.id}`, {
      token: key,
      body: { logoUrl: url('/logo.png'), bannerUrl: null, screenshots: [{ url: url('/shot-small.png') }] },
    });
    expect(updated.status).toBe(200);

    const checks = await checksFor(app.id, ['logoUrl', 'screenshots[0]'], (shown) => shown.every((check) => check.url !== url('/logo-wide.jpg')));
    // Images that break a rule are still mirrored: the reviewer sees them as they are.
    expect(byField(checks)).toEqual({
      logoUrl: {
        field: 'logoUrl',
        url: url('/logo.png'),
        ok: true,
        format: 'png',
        width: 512,
        height: 512,
        problems: [],
        mirrorUrl: mirrorOf(LOGO, 'png'),
      },
      'screenshots[0]': {
        field: 'screenshots[0]',
        url: url('/shot-small.png'),
        ok: false,
        format: 'png',
        width: 800,
        height: 600,
        problems: ['screenshot must be at least 1280x720 (got 800x600)'],
        mirrorUrl: mirrorOf(SHOT_SMALL, 'png'),
      },
    });
    expect((await storedRows(app.id)).map((row) => row.field)).toEqual(['logoUrl', 'screenshots[0]']);
  });

  test('running the job again for the same app yields the same results', async () => {
    const app = await createApp(t, key, minimalApp({ logoUrl: url('/logo-small.png'), screenshots: [{ url: url('/shot-hd.png') }] }));
    await checksFor(app.id, ['logoUrl', 'screenshots[0]']);
    const before = await storedRows(app.id);

    const jobId = await t.ctx.boss.send(ASSET_CHECKS_QUEUE, { appId: app.id });
    await eventually(async () => (await t.ctx.boss.getJobById(ASSET_CHECKS_QUEUE, jobId!))?.state === 'completed');

    const after = await storedRows(app.id);
    const withoutTime = (rows: Record<string, unknown>[]) => rows.map(({ checked_at, ...rest }) => rest);
    expect(withoutTime(after)).toEqual(withoutTime(before));
    expect(new Date(after[0].checked_at).getTime()).toBeGreaterThanOrEqual(new Date(before[0].checked_at).getTime());
  });

  test('a job for an app that no longer exists completes without writing anything', async () => {
    const app = await createApp(t, key, minimalApp({ logoUrl: url('/logo.png') }));
    await checksFor(app.id, ['logoUrl']);
    expect((await t.call('DELETE', `/api/dev/apps/${app.id}`, { token: key })).status).toBe(200);
    const hitsBefore = server.hits.length;

    const jobId = await t.ctx.boss.send(ASSET_CHECKS_QUEUE, { appId: app.id });
    await eventually(async () => (await t.ctx.boss.getJobById(ASSET_CHECKS_QUEUE, jobId!))?.state === 'completed');

    expect(await storedRows(app.id)).toEqual([]);
    expect(server.hits.length).toBe(hitsBefore);
  });

  test('an app without images gets no checks', async () => {
    const app = await createApp(t, key, minimalApp());
    const jobId = await t.ctx.boss.send(ASSET_CHECKS_QUEUE, { appId: app.id });
    await eventually(async () => (await t.ctx.boss.getJobById(ASSET_CHECKS_QUEUE, jobId!))?.state === 'completed');
    expect(await storedRows(app.id)).toEqual([]);
    expect((await ownerView(app.id)).assetChecks).toEqual([]);
  });
});
