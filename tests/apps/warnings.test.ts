import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { assetChecksSettled, completeApp, createApp } from './fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { image, startImageServer, type ImageServer } from '../assets/image-server.ts';
import { png } from '../assets/images.ts';

/**
 * Preflight and submit tell the developer what the asset checks found, at each field's path:
 * an image not checked yet, one that could not be fetched, one of the wrong size. They are
 * warnings: the listing is still ready, and submission does not wait for the checks.
 */
let t: TestApp;
let server: ImageServer;
let key: string;
let releaseSlow: () => void = () => {};
const slow = new Promise<void>((resolve) => (releaseSlow = resolve));

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true' });
  server = startImageServer({
    '/small-logo.png': image(png(100, 100), 'image/png'),
    '/logo.png': image(png(512, 512), 'image/png'),
    '/shot.png': image(png(1280, 720), 'image/png'),
    '/missing.png': () => new Response('gone', { status: 404 }),
    '/slow.png': async () => {
      await slow;
      return new Response(png(512, 512), { headers: { 'content-type': 'image/png' } });
    },
  });
  key = await mintKey(t, await registerDeveloper(t));
}, 30_000);
afterAll(async () => {
  releaseSlow();
  await server.stop();
  await t.close();
}, 30_000);

const url = (path: string) => `${server.origin}${path}`;

test('a small logo and a missing screenshot are warnings at their paths, in preflight and in the submit response', async () => {
  const app = await createApp(
    t,
    key,
    completeApp({
      environment: 'staging',
      logoUrl: url('/small-logo.png'),
      screenshots: [{ url: url('/shot.png') }, { url: url('/missing.png') }],
    }),
  );
  await assetChecksSettled(t, app.id);

  const preflight = await t.call('POST', `/api/dev/apps/${app.id}/preflight`, { token: key });
  expect(preflight.status).toBe(200);
  expect(preflight.body.ready).toBe(true);
  expect(preflight.body.errors).toEqual([]);
  expect(preflight.body.warnings).toEqual([
    { path: 'logoUrl', message: expect.stringContaining('512') },
    { path: 'screenshots[1].url', message: 'could not fetch: bad status 404' },
  ]);

  const submitted = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
  expect(submitted.status).toBe(200);
  expect(submitted.body.status).toBe('PENDING');
  expect(submitted.body.warnings).toEqual(preflight.body.warnings);
});

test('an image whose check has not finished is a pending warning; a clean listing has none', async () => {
  const pending = await createApp(
    t,
    key,
    completeApp({ environment: 'staging', logoUrl: url('/slow.png'), screenshots: [{ url: url('/shot.png') }, { url: url('/shot.png') }] }),
  );
  const first = await t.call('POST', `/api/dev/apps/${pending.id}/preflight`, { token: key });
  expect(first.body.warnings).toContainEqual({
    path: 'logoUrl',
    message: 'not checked yet: the image is fetched and checked in the background',
  });
  releaseSlow();

  const clean = await createApp(
    t,
    key,
    completeApp({ environment: 'staging', logoUrl: url('/logo.png'), screenshots: [{ url: url('/shot.png') }, { url: url('/shot.png') }] }),
  );
  await assetChecksSettled(t, clean.id);
  const settled = await eventually(async () => {
    const response = await t.call('POST', `/api/dev/apps/${clean.id}/preflight`, { token: key });
    return response.body.warnings.length === 0 && response;
  });
  expect(settled.body).toEqual({ ready: true, errors: [], warnings: [] });
});
