import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { databaseFingerprint, openFingerprintReader } from '../security/fingerprint.ts';
import { createAdminAccount, signedIn, type ConsoleClient } from './support.ts';
import { buildWorld } from './world.ts';

/**
 * The console's routes are not in the OpenAPI document, so the API fuzz test does not reach them.
 * Here every console route (read from the route table, so a new one is included) gets hostile
 * path ids, query strings and form values from a signed-in owner with a valid CSRF token: never a
 * 5xx, and a refused form changes nothing the console writes.
 */
let t: TestApp;
let owner: ConsoleClient;
let ids: string[];

beforeAll(async () => {
  t = await createTestApp();
  fingerprints = await openFingerprintReader(t);
  const world = await buildWorld(t);
  owner = await signedIn(t, await createAdminAccount(t, 'owner'));
  const [developer] = await t.sql<{ id: string }>('select id from developers limit 1');
  const [admin] = await t.sql<{ id: string }>('select id from admins limit 1');
  ids = [world.pending.id, world.approved.id, world.resubmitted.id, world.reviewId, developer!.id, admin!.id, 'not-an-id', '%00'];
});
afterAll(async () => {
  await fingerprints.close();
  await t.close();
});

const VALUES = ['', 'x'.repeat(20_000), '\u0000', '<script>alert(1)</script>', '-1', '99999999999999999999', '1.5', 'owner', 'javascript:alert(1)'];
const FIELDS = [
  'version',
  'reason',
  'reasons',
  'name',
  'description',
  'longDescription',
  'websiteUrl',
  'role',
  'email',
  'password',
  'clientId',
  'developer',
  'note',
  'q',
];
/** What console actions write; job and roll-up tables move on their own. */
const WRITTEN = ['developers', 'apps', 'app_revisions', 'reviews', 'oauth_clients', 'admins', 'audit_log', 'app_transitions'].map(
  (table) => `public.${table}`,
);
/** Read over a connection of its own (`openFingerprintReader`): ~2,000 digests. */
let fingerprints: Awaited<ReturnType<typeof openFingerprintReader>>;
const written = async () => JSON.stringify(await databaseFingerprint(fingerprints, {}, WRITTEN));

test('every console route answers hostile ids, queries and forms without a 5xx; a refused form changes nothing', async () => {
  // Signing in and out would end this client's session; those routes have tests of their own.
  const routes = t.app.routes.filter((route) => route.path.startsWith('/admin') && !/logout|login|enrol|totp|assets/.test(route.path));
  expect(routes.length).toBeGreaterThan(30);
  const failures: string[] = [];
  let refusedForms = 0;
  /** The digest of what the console writes, as the last post left it (unknown after one that was accepted). */
  let known: string | undefined;
  /** Paths already read: a route without a path parameter has the same path for every id, and an identical read right after itself adds nothing. */
  const read = new Set<string>();
  for (const route of routes) {
    for (const id of ids) {
      const path = route.path
        .replace(':queue', 'stats.app.dead')
        .replace(/:[a-zA-Z]+/g, id)
        .replace('*', 'nothing');
      if (route.method === 'GET') {
        if (read.has(path)) continue;
        read.add(path);
        // Reads change nothing, so one route's hostile queries are asked at once.
        await Promise.all(
          VALUES.map(async (value) => {
            const query = FIELDS.map((field) => `${field}=${encodeURIComponent(value)}`).join('&');
            const response = await owner.get(`${path}?${query}`);
            if (response.status >= 500) failures.push(`GET ${route.path} ${JSON.stringify(value.slice(0, 20))} → ${response.status}`);
          }),
        );
        continue;
      }
      for (const value of VALUES) {
        const before = (known ??= await written());
        const response = await owner.post(path, Object.fromEntries(FIELDS.map((field) => [field, value])));
        if (response.status >= 500) failures.push(`POST ${route.path} ${JSON.stringify(value.slice(0, 20))} → ${response.status}`);
        if (response.status >= 400 && response.status < 500) {
          refusedForms += 1;
          // What a refusal left is the next post's "before": one digest per refused form, not two.
          known = await written();
          if (known !== before) failures.push(`POST ${route.path} refused with ${response.status} but changed the database`);
        } else known = undefined;
      }
    }
  }
  expect(failures).toEqual([]);
  expect(refusedForms).toBeGreaterThan(100);
}, 180_000);
