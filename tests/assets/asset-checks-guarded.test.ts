import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createApp, minimalApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { image, startImageServer, type ImageServer } from './image-server.ts';
import { png } from './images.ts';

/** The service as deployed: ALLOW_PRIVATE_FETCH unset, so local and internal addresses are never fetched. */
let t: TestApp;
let server: ImageServer;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  expect(t.ctx.config.allowPrivateFetch).toBe(false);
  server = startImageServer({ '/logo.png': image(png(512, 512), 'image/png'), '/shot.png': image(png(1280, 720), 'image/png') });
  const developer = await registerDeveloper(t);
  key = await mintKey(t, developer);
});

afterAll(async () => {
  await server.stop();
  await t.close();
});

test('images on private addresses are recorded as failed checks, and no request reaches them', async () => {
  const app = await createApp(
    t,
    key,
    minimalApp({
      logoUrl: `${server.origin}/logo.png`,
      bannerUrl: 'http://169.254.169.254/latest/meta-data/',
      screenshots: [{ url: `http://localhost:${server.port}/shot.png` }, { url: `http://[::ffff:127.0.0.1]:${server.port}/shot.png` }],
    }),
  );

  const checks = await eventually(async () => {
    const view = await t.call('GET', `/api/dev/apps/${app.id}`, { token: key });
    return view.body.assetChecks.length === 4 ? view.body.assetChecks : null;
  });
  for (const check of checks) {
    expect(check).toMatchObject({ ok: false, format: null, width: null, height: null, problems: ['could not fetch: blocked address'] });
  }
  expect(checks.map((check: { field: string }) => check.field).sort()).toEqual(['bannerUrl', 'logoUrl', 'screenshots[0]', 'screenshots[1]']);
  expect(server.hits).toEqual([]);
});
