import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';

/**
 * Concurrent installs are committed together in batches (group commit). Each request still gets
 * its own answer: refusals stay refusals, repeats report the first install, and every 201 is a row.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ TRUSTED_PROXIES: '127.0.0.1/32' });
});
afterAll(() => t.close());

test('a crowd of mixed installs: each answered as if alone, every 201 stored, repeats report the first time', async () => {
  const developer = await insertDeveloper(t);
  const apps = await Promise.all([1, 2, 3].map((n) => insertApp(t, { developerId: developer, name: `Crowd App ${n}` })));
  const draft = await insertApp(t, { developerId: developer, status: 'DRAFT' });
  const suspended = await insertApp(t, { developerId: developer, status: 'SUSPENDED' });
  const requests = [
    ...Array.from({ length: 60 }, (_, i) => ({
      slug: apps[i % 3]!.slug,
      body: { installationId: `crowd-${i}` },
      from: `198.51.100.${i}`,
      expect: 201,
    })),
    // The same installer twice in the same crowd.
    ...[0, 1].map(() => ({ slug: apps[0]!.slug, body: { installationId: 'twice' }, from: '203.0.113.1', expect: 201 })),
    ...Array.from({ length: 5 }, (_, i) => ({ slug: draft.slug, body: { installationId: `d-${i}` }, from: '203.0.113.2', expect: 404 })),
    ...Array.from({ length: 5 }, (_, i) => ({ slug: suspended.slug, body: { installationId: `s-${i}` }, from: '203.0.113.3', expect: 410 })),
    ...Array.from({ length: 5 }, (_, i) => ({ slug: 'no-such-app', body: { installationId: `n-${i}` }, from: '203.0.113.4', expect: 404 })),
  ];
  const responses = await Promise.all(
    requests.map((r) => t.call('POST', `/api/apps/${r.slug}/install`, { body: r.body, headers: { 'x-forwarded-for': r.from } })),
  );
  expect(responses.map((r) => r.status)).toEqual(requests.map((r) => r.expect));
  const twice = responses.filter((_, i) => requests[i]!.body.installationId === 'twice');
  expect(twice[0]!.body.installedAt).toBe(twice[1]!.body.installedAt);
  const [row] = await t.sql<{ n: number }>('select count(*)::int as n from installs where app_id in (?)', [apps.map((a) => a.id)]);
  expect(row!.n).toBe(61);
  const refused = await t.sql<{ n: number }>('select count(*)::int as n from installs where app_id in (?)', [[draft.id, suspended.id]]);
  expect(refused[0]!.n).toBe(0);
});
