import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import pg from 'pg';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { approvedApp, completeApp, deps } from '../apps/fixtures.ts';
import { decideApp, setFeatured } from '../../src/modules/apps/app-admin.service.ts';
import { decideRevision } from '../../src/modules/apps/revisions.service.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { bumpCatalogueVersion } from '../../src/modules/catalogue/catalogue-version.ts';
import { recomputeAppStats, rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import { metricsRegistry } from '../../src/lib/metrics.ts';
import { CATALOGUE_CACHE_BOUNDS, createPublicCatalogue } from '../../src/modules/catalogue/public-catalogue.ts';
import { COUNTERS_POLL_MS, createCounterChanges } from '../../src/modules/catalogue/counter-changes.ts';
import { eventually } from '../support/eventually.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { PublicAppSummary } from '../../src/modules/catalogue/catalogue.model.ts';
import { PublicAppView } from '../../src/modules/apps/apps.model.ts';
import type { CatalogueReaders, SqlReader } from '../../src/lib/sql-reader.ts';

/**
 * Public GETs are served from a per-process cache of serialised responses, invalidated by the
 * catalogue version: HTTP caching headers, summaries in lists, nothing owner-only ever in a cached
 * body, and every kind of change visible at once in the process that made it.
 */
let t: TestApp;
let developer: TestDeveloper;
let key: string;
let app: { id: string; slug: string; version: number };
const SECRET_NOTES = 'Reviewer login: owner-only-secret-4711';

beforeAll(async () => {
  t = await createTestApp();
  developer = await registerDeveloper(t, { name: 'Cache Owner' });
  key = await mintKey(t, developer);
  app = await approvedApp(t, key, {
    name: 'Cache Probe',
    description: 'Probes the public cache.',
    longDescription: '# Long\n\nText that lists leave out.',
    category: 'UTILITIES',
    environment: 'production',
    logoUrl: 'https://cdn.example.com/logo.png',
    screenshots: [{ url: 'https://cdn.example.com/1.png' }, { url: 'https://cdn.example.com/2.png' }],
    reviewNotes: SECRET_NOTES,
  });
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = {}) => t.call('GET', path, { headers });
/** Answers this process read from PostgreSQL rather than from its cache. */
const misses = async () => (await metricsRegistry.getSingleMetric('catalogue_cache_misses_total')!.get()).values[0]?.value ?? 0;
/**
 * Asks for these apps until their answers stay cached through polls that could report the apps'
 * stats rows as changed (a new app's row is, once): from then on only a later change reloads them.
 */
async function untilCached(...slugs: string[]): Promise<void> {
  let lastMiss = { count: await misses(), at: performance.now() };
  await eventually(async () => {
    for (const slug of slugs) await get(`/api/apps/${slug}`);
    const count = await misses();
    if (count !== lastMiss.count) lastMiss = { count, at: performance.now() };
    return performance.now() - lastMiss.at > 3 * COUNTERS_POLL_MS;
  });
}
const PUBLIC_PATHS = () => [
  '/api/apps',
  '/api/apps?search=cache%20probe',
  `/api/apps/${app.slug}`,
  '/api/apps/featured/list',
  '/api/apps/categories/list',
];

describe('HTTP caching', () => {
  test('public GETs carry an ETag and Cache-Control: public with max-age, s-maxage and stale-while-revalidate', async () => {
    for (const path of PUBLIC_PATHS()) {
      for (let i = 0; i < 2; i += 1) {
        const response = await get(path);
        expect(response.status).toBe(200);
        expect(response.headers.get('etag')).toMatch(/^"[0-9a-z]+"$/);
        expect(response.headers.get('cache-control')).toBe('public, max-age=1, s-maxage=1, stale-while-revalidate=30');
        expect(response.headers.get('content-type')).toContain('application/json');
        expect(response.headers.get('x-request-id')).toBeTruthy();
        expect(response.headers.get('set-cookie')).toBeNull();
        expect(response.headers.get('ratelimit-limit')).toBeNull();
      }
    }
  });

  test('If-None-Match with the current ETag is a 304 without a body; another ETag gets the body', async () => {
    for (const path of PUBLIC_PATHS()) {
      const first = await get(path);
      const etag = first.headers.get('etag')!;
      const again = await get(path, { 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.body).toBeUndefined();
      expect(again.headers.get('etag')).toBe(etag);
      expect((await get(path, { 'if-none-match': `"stale", W/${etag}` })).status).toBe(304);
      expect((await get(path, { 'if-none-match': '"something-else"' })).status).toBe(200);
    }
  });

  test('the ETag changes when the content does', async () => {
    const before = (await get(`/api/apps/${app.slug}`)).headers.get('etag');
    await setFeatured(deps(t), app.id, true, CLI_ACTOR);
    const after = await get(`/api/apps/${app.slug}`, { 'if-none-match': before! });
    expect(after.status).toBe(200);
    expect(after.body.featured).toBe(true);
    expect(after.headers.get('etag')).not.toBe(before);
  });

  test('errors are never cacheable', async () => {
    const missing = await get('/api/apps/no-such-app');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect(missing.headers.get('etag')).toBeNull();
  });
});

describe('what a cached body may hold', () => {
  test('lists and featured are summaries: exactly the summary fields, no long description or screenshots', async () => {
    const summaryFields = Object.keys(PublicAppSummary.properties).sort();
    for (const path of ['/api/apps', '/api/apps?search=probe', '/api/apps/featured/list']) {
      const body = (await get(path)).body;
      const mine = body.data.find((item: { id: string }) => item.id === app.id);
      expect(Object.keys(mine).sort()).toEqual(summaryFields);
      expect(mine).not.toHaveProperty('longDescription');
      expect(mine).not.toHaveProperty('screenshots');
    }
    const full = (await get(`/api/apps/${app.slug}`)).body;
    expect(Object.keys(full).sort()).toEqual(Object.keys(PublicAppView.properties).sort());
    expect(full.longDescriptionHtml).toContain('<h1>Long</h1>');
    expect(full.screenshots).toHaveLength(2);
  });

  test('owner-only fields never reach a cached response, even after the owner read them', async () => {
    const owner = await t.call('GET', `/api/dev/apps/${app.id}`, { token: key });
    expect(owner.body.reviewNotes).toBe(SECRET_NOTES);
    for (const path of PUBLIC_PATHS()) {
      for (let i = 0; i < 2; i += 1) {
        const response = await t.app.handle(new Request(`http://localhost${path}`));
        const text = await response.text();
        expect(text).not.toContain('owner-only-secret');
        for (const field of ['reviewNotes', 'rejectionReason', 'assetChecks', 'pendingRevision', 'submittedAt', 'reviewedAt']) {
          expect(text).not.toContain(`"${field}"`);
        }
      }
    }
  });
});

describe('invalidation', () => {
  /** A change made behind the services' back (no version bump) shows that the answer really is cached. */
  test('a cached answer stays until the catalogue version moves, then the next request reads again', async () => {
    await get(`/api/apps/${app.slug}`);
    await t.sql(`update apps set description = 'Changed behind the cache.' where id = ?`, [app.id]);
    expect((await get(`/api/apps/${app.slug}`)).body.description).toBe('Probes the public cache.');
    await t.ctx.orm.em.fork().transactional((tx) => bumpCatalogueVersion(tx));
    expect((await get(`/api/apps/${app.slug}`)).body.description).toBe('Changed behind the cache.');
  });

  test('every change the public catalogue shows is served at once by this process', async () => {
    const other = await approvedApp(t, key);
    const listed = async () => ((await get('/api/apps?limit=100')).body.data as { id: string }[]).map((a) => a.id);
    expect(await listed()).toContain(other.id);

    await decideApp(deps(t), other.id, 'suspend', { actor: CLI_ACTOR });
    expect(await listed()).not.toContain(other.id);
    expect((await get(`/api/apps/${other.slug}`)).status).toBe(410);

    await decideApp(deps(t), other.id, 'relist', { actor: CLI_ACTOR });
    expect(await listed()).toContain(other.id);

    await setFeatured(deps(t), other.id, true, CLI_ACTOR);
    expect(((await get('/api/apps/featured/list')).body.data as { id: string }[]).map((a) => a.id)).toContain(other.id);

    const revision = await t.call('POST', `/api/dev/apps/${other.id}/revisions`, { token: key, body: { description: 'Revised words.' } });
    expect(revision.status).toBe(201);
    expect((await get(`/api/apps/${other.slug}`)).body.description).not.toBe('Revised words.');
    await decideRevision(deps(t), other.id, 'approve', { actor: CLI_ACTOR });
    expect((await get(`/api/apps/${other.slug}`)).body.description).toBe('Revised words.');

    const renamed = await t.call('PUT', '/api/dev/me', { token: developer.oauthToken, body: { name: 'Renamed Owner' } });
    expect(renamed.status).toBe(200);
    expect((await get(`/api/apps/${other.slug}`)).body.developer.name).toBe('Renamed Owner');

    await transitionDeveloper(deps(t), developer.id, 'suspend', CLI_ACTOR);
    expect(await listed()).not.toContain(other.id);
    await transitionDeveloper(deps(t), developer.id, 'reinstate', CLI_ACTOR);
    expect(await listed()).toContain(other.id);

    // A rolled-up counter: an install event, then the roll-up (as its job runs it); counters are polled, not versioned.
    const before = (await get(`/api/apps/${other.slug}`)).body.installCount;
    await t.sql(`insert into installs (app_id, installer) values (?, 'user:cache-test')`, [other.id]);
    await rollUpNewInstalls(t.ctx.orm.em.fork());
    await eventually(async () => (await get(`/api/apps/${other.slug}`)).body.installCount === before + 1);
  });
});

describe('counters apart from the catalogue version', () => {
  test("an install's roll-up leaves the version and every other cached answer alone; the new count is served within the contract's 5 s", async () => {
    const quiet = await approvedApp(t, key, completeApp({ name: 'Counter Quiet' }));
    const busy = await approvedApp(t, key, completeApp({ name: 'Counter Busy' }));
    // The approvals' own jobs (category counts) move the version; wait until they are done.
    await eventually(async () => (await t.sql(`select 1 from pgboss.job where name like 'stats.%' and state < 'completed'`)).length === 0);
    await untilCached(quiet.slug, busy.slug);
    const quietBody = (await get(`/api/apps/${quiet.slug}`)).body;
    const [version] = await t.sql<{ version: string }>('select version from catalogue_version');

    await t.sql(`insert into installs (app_id, installer) values (?, 'user:counter-1'), (?, 'user:counter-2')`, [busy.id, busy.id]);
    const rolledUpAt = performance.now();
    await rollUpNewInstalls(t.ctx.orm.em.fork());
    expect(await t.sql('select version from catalogue_version')).toEqual([version]);
    await eventually(async () => (await get(`/api/apps/${busy.slug}`)).body.installCount === 2);
    expect(performance.now() - rolledUpAt).toBeLessThan(5_000);

    // The quiet app's answer never left the cache: no read of it reached PostgreSQL.
    const missesBefore = await misses();
    expect((await get(`/api/apps/${quiet.slug}`)).body).toEqual(quietBody);
    expect(await misses()).toBe(missesBefore);
  });
});

describe('counters', () => {
  test("a process's first poll has no horizon to read from: answers showing apps loaded before it are read again once (D230)", async () => {
    const counters = createCounterChanges(() => t.ctx.catalogueReaders.next());
    const loadedBefore = performance.now();
    // A roll-up commits after that answer was read and before the first poll: no poll will report it.
    await t.sql(`update app_stats set review_count = review_count where app_id = ?`, [app.id]);
    counters.tick();
    await eventually(async () => counters.lastLearntAt() > loadedBefore);
    expect(counters.outdated([app.id], loadedBefore)).toBe(true);
    // An answer without apps carries no counters; one read after the first poll is current.
    expect(counters.outdated([], loadedBefore)).toBe(false);
    expect(counters.outdated([app.id], performance.now())).toBe(false);
  });

  test("a review's roll-up reaches the cached answer within the contract's 5 s, as an install's does (D230)", async () => {
    const reviewed = await approvedApp(t, key, completeApp({ name: 'Counter Reviewed' }));
    await eventually(async () => (await t.sql(`select 1 from pgboss.job where name like 'stats.%' and state < 'completed'`)).length === 0);
    expect((await get(`/api/apps/${reviewed.slug}`)).body).toMatchObject({ reviewCount: 0, installCount: 0 });
    await untilCached(reviewed.slug);
    // A review alone: the stats row's install counters stay as they were.
    await t.sql(
      `insert into reviews (id, app_id, platform_user_id, rating, created_at, updated_at) values (?, ?, 'counter-reviewer', 4, now(), now())`,
      [Bun.randomUUIDv7(), reviewed.id],
    );
    const rolledUpAt = performance.now();
    await recomputeAppStats(t.ctx.orm.em.fork(), reviewed.id);
    await eventually(async () => (await get(`/api/apps/${reviewed.slug}`)).body.reviewCount === 1);
    expect(performance.now() - rolledUpAt).toBeLessThan(5_000);
    expect((await get(`/api/apps/${reviewed.slug}`)).body).toMatchObject({ reviewCount: 1, averageRating: 4, installCount: 0 });
  });

  test('an answer whose counters moved is given at once while its new one is read: no reader waits on PostgreSQL for a counter', async () => {
    const stale = await approvedApp(t, key, completeApp({ name: 'Counter Stale' }));
    await eventually(async () => (await t.sql(`select 1 from pgboss.job where name like 'stats.%' and state < 'completed'`)).length === 0);
    expect((await get(`/api/apps/${stale.slug}`)).body.installCount).toBe(0);
    await t.sql(`insert into installs (app_id, installer) values (?, 'user:stale-1'), (?, 'user:stale-2')`, [stale.id, stale.id]);
    await rollUpNewInstalls(t.ctx.orm.em.fork());
    // Listings cannot be read meanwhile (the counters' own poll reads only the stats rows).
    const holder = new pg.Client({ connectionString: t.runtime.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('lock table apps in access exclusive mode');
      const within = <T>(promise: Promise<T>) =>
        Promise.race([promise, Bun.sleep(2_000).then(() => Promise.reject(new Error('the reader waited for PostgreSQL')))]);
      // Once this process has learnt of the change, a new read of the app waits behind the lock, and readers still get the answer.
      await eventually(async () => {
        const answer = await within(get(`/api/apps/${stale.slug}`));
        expect(answer.status).toBe(200);
        expect(answer.body.installCount).toBe(0);
        const [waiting] = await t.sql<{ n: number }>(`select count(*)::int as n from pg_locks where relation = 'apps'::regclass and not granted`);
        return waiting!.n > 0;
      });
      const answer = await within(get(`/api/apps/${stale.slug}`));
      expect([answer.status, answer.body.installCount]).toEqual([200, 0]);
    } finally {
      await holder.end();
    }
    await eventually(async () => (await get(`/api/apps/${stale.slug}`)).body.installCount === 2);
  });

  test('such an answer is still given before routing, and the one read in its place follows (D185)', async () => {
    const moved = await approvedApp(t, key, completeApp({ name: 'Counter Early' }));
    await eventually(async () => (await t.sql(`select 1 from pgboss.job where name like 'stats.%' and state < 'completed'`)).length === 0);
    const catalogue = createPublicCatalogue(t.ctx.catalogueReaders);
    const target = `/api/apps/${moved.slug}`;
    const installCount = async (answer: { body: Blob } | undefined) => (answer ? JSON.parse(await answer.body.text()).installCount : undefined);
    expect(await installCount(await catalogue.app(target, moved.slug))).toBe(0);
    await t.sql(`insert into installs (app_id, installer) values (?, 'user:early-1'), (?, 'user:early-2')`, [moved.id, moved.id]);
    await rollUpNewInstalls(t.ctx.orm.em.fork());
    // Every ask is answered from the cache, before routing: the old count until the new one is read.
    const seen: unknown[] = [];
    await eventually(async () => {
      seen.push(await installCount(catalogue.cached(target)));
      return seen.at(-1) === 2;
    });
    expect(seen.filter((count) => count !== 0 && count !== 2)).toEqual([]);
  });

  test('the read that replaces such an answer lets requests that wait for their reads go first (D224)', async () => {
    const moved = await approvedApp(t, key, completeApp({ name: 'Counter Lane' }));
    await eventually(async () => (await t.sql(`select 1 from pgboss.job where name like 'stats.%' and state < 'completed'`)).length === 0);
    // Which of a reader's lanes each statement went through.
    const reads: { lane: string; text: string }[] = [];
    const recorded = (reader: SqlReader, lane: string): SqlReader => ({
      ...reader,
      query: (statement) => {
        reads.push({ lane, text: statement.text });
        return reader.query(statement);
      },
    });
    const readers: CatalogueReaders = {
      ...t.ctx.catalogueReaders,
      next: () => {
        const reader = t.ctx.catalogueReaders.next();
        return { ...recorded(reader, 'request'), inBackground: recorded(reader.inBackground, 'background') };
      },
    };
    const catalogue = createPublicCatalogue(readers);
    const target = `/api/apps/${moved.slug}`;
    const lanesOfTheAppsReads = () => reads.filter((read) => read.text.includes('a.slug =')).map((read) => read.lane);
    const installCount = async () => {
      const answer = catalogue.cached(target);
      return answer && JSON.parse(await answer.body.text()).installCount;
    };
    await catalogue.app(target, moved.slug);
    expect(lanesOfTheAppsReads()).toEqual(['request']);
    await t.sql(`insert into installs (app_id, installer) values (?, 'user:lane-1'), (?, 'user:lane-2')`, [moved.id, moved.id]);
    await rollUpNewInstalls(t.ctx.orm.em.fork());
    await eventually(async () => (await installCount()) === 2);
    const [first, ...replacements] = lanesOfTheAppsReads();
    expect([first, replacements.length > 0, [...new Set(replacements)]]).toEqual(['request', true, ['background']]);
  });
});

describe('searches', () => {
  test('a search is kept only once it is asked again, room or not: one asked once pushes no other answer out (D182, D218)', async () => {
    // Nothing in flight that could move the version (and so empty the cache) meanwhile.
    await eventually(async () => (await t.sql(`select 1 from pgboss.job where name like 'stats.%' and state < 'completed'`)).length === 0);
    const small = createPublicCatalogue(t.ctx.catalogueReaders, { ...CATALOGUE_CACHE_BOUNDS, responses: 2 });
    // Words nothing matches: an answer without apps, which no counter change can outdate.
    const ask = (search: string) => small.list(`/api/apps?search=${search}`, { search });
    const before = await misses();
    // An empty cache: a first ask is read and not kept, a second is read and kept, a third is a hit.
    await ask('xylophonic');
    await ask('xylophonic');
    await ask('xylophonic');
    expect(await misses()).toBe(before + 2);
    await ask('quetzalcoatl');
    await ask('quetzalcoatl');
    // The cache is full: a first ask pushes neither out.
    await ask('zymurgies');
    await ask('xylophonic');
    await ask('quetzalcoatl');
    expect(await misses()).toBe(before + 5);
    // Asked again, it is read again, and now kept.
    await ask('zymurgies');
    await ask('zymurgies');
    expect(await misses()).toBe(before + 6);
  });
});

describe('rate limits on cacheable reads', () => {
  test('answers from the cache still count against the per-address read limit, without RateLimit headers', async () => {
    const limited = await createTestApp({ RATE_LIMITS: 'public=3' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const response = await limited.call('GET', '/api/apps/categories/list');
        statuses.push(response.status);
        if (response.status === 200) expect(response.headers.get('ratelimit-limit')).toBeNull();
        else expect(response.headers.get('retry-after')).toBeTruthy();
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await limited.close();
    }
  });
});
