import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';

// Under `app.handle` the direct peer is 127.0.0.1, which this configuration trusts (with a private range behind it).
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ TRUSTED_PROXIES: '127.0.0.1/32, 10.0.0.0/8' });
});
afterAll(() => t.close());

const today = () => new Date().toISOString().slice(0, 10);

test('behind a trusted proxy, X-Forwarded-For names the installer; trusted hops are skipped from the right', async () => {
  const app = await insertApp(t, { developerId: await insertDeveloper(t) });
  const install = (forwarded?: string) =>
    t.call('POST', `/api/apps/${app.slug}/install`, forwarded ? { headers: { 'x-forwarded-for': forwarded } } : {});

  expect((await install('203.0.113.7')).status).toBe(201);
  expect((await install('203.0.113.7')).status).toBe(201);
  expect((await install('198.51.100.4, 203.0.113.8, 10.1.2.3')).status).toBe(201);
  expect((await install()).status).toBe(201);

  const rows = await t.sql<{ installer: string }>('select installer from installs where app_id = ? order by id', [app.id]);
  expect(rows.map((row) => row.installer)).toEqual([
    `address:203.0.113.7:${today()}`,
    // The client spoofed 198.51.100.4; the first untrusted hop from the right is what counts.
    `address:203.0.113.8:${today()}`,
    `address:127.0.0.1:${today()}`,
  ]);
});
