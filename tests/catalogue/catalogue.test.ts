import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { addEvents, insertApp, insertDeveloper, refreshCategoryCounts, type FixtureApp } from '../support/fixtures.ts';

let t: TestApp;
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

// Public apps (APPROVED, developer not suspended).
let invoice: FixtureApp; // FINANCE, production, featured; 30 installs; ten reviews averaging 4.5
let calendar: FixtureApp; // PRODUCTIVITY, staging; 10 installs; approved yesterday
let chat: FixtureApp; // COMMUNICATION, production, featured; 20 installs
let metrics: FixtureApp; // ANALYTICS, localhost; one 5★ review
let metricsPro: FixtureApp; // ANALYTICS, production; more installs, same words plus more
// Never public, or no longer.
let draft: FixtureApp;
let pending: FixtureApp;
let rejected: FixtureApp;
let suspended: FixtureApp;
let ofSuspendedDeveloper: FixtureApp;
let publicIds: string[];
let hiddenIds: string[];

beforeAll(async () => {
  t = await createTestApp();
  const developer = await insertDeveloper(t, { name: 'Ada Park', companyName: 'Northwind Labs' });
  const other = await insertDeveloper(t, { name: 'Sam Other' });
  const suspendedDeveloper = await insertDeveloper(t, { status: 'SUSPENDED' });

  invoice = await insertApp(t, {
    developerId: developer,
    name: 'Zephyr Invoice Ninja',
    description: 'Turns tracked time into invoices.',
    category: 'FINANCE',
    featured: true,
    firstApprovedAt: daysAgo(10),
  });
  calendar = await insertApp(t, {
    developerId: other,
    name: 'Quasar Calendar Sync',
    description: 'Puts due dates on your calendar.',
    environment: 'staging',
    firstApprovedAt: daysAgo(1),
  });
  chat = await insertApp(t, {
    developerId: developer,
    name: 'Orbit Chat Bridge',
    description: 'Posts task updates to your team chat.',
    category: 'COMMUNICATION',
    featured: true,
    firstApprovedAt: daysAgo(5),
  });
  metrics = await insertApp(t, {
    developerId: other,
    name: 'Lumen Metrics',
    description: 'Charts throughput per project.',
    category: 'ANALYTICS',
    environment: 'localhost',
    firstApprovedAt: daysAgo(3),
  });
  metricsPro = await insertApp(t, {
    developerId: other,
    name: 'Lumen Metrics Dashboard Pro',
    description: 'Lumen metrics dashboards: metrics for every lumen metrics fan.',
    category: 'ANALYTICS',
    firstApprovedAt: daysAgo(20),
  });
  draft = await insertApp(t, { developerId: developer, name: 'Hidden Draft Invoice', category: 'FINANCE', status: 'DRAFT', featured: true });
  pending = await insertApp(t, { developerId: developer, name: 'Pending Invoice Planner', category: 'FINANCE', status: 'PENDING' });
  rejected = await insertApp(t, { developerId: developer, name: 'Rejected Invoice Tool', category: 'FINANCE', status: 'REJECTED' });
  suspended = await insertApp(t, {
    developerId: developer,
    name: 'Suspended Invoice Widget',
    category: 'FINANCE',
    status: 'SUSPENDED',
    featured: true,
  });
  ofSuspendedDeveloper = await insertApp(t, {
    developerId: suspendedDeveloper,
    name: 'Ghost Invoice Ledger',
    category: 'FINANCE',
    featured: true,
  });

  await addEvents(t, invoice.id, { installs: 30, ratings: [5, 5, 5, 5, 5, 4, 4, 4, 4, 4] });
  await addEvents(t, calendar.id, { installs: 10 });
  await addEvents(t, chat.id, { installs: 20 });
  await addEvents(t, metrics.id, { ratings: [5] });
  await addEvents(t, metricsPro.id, { installs: 40 });
  await addEvents(t, suspended.id, { installs: 100 });
  await addEvents(t, ofSuspendedDeveloper.id, { installs: 100 });
  await refreshCategoryCounts(t);

  publicIds = [invoice, calendar, chat, metrics, metricsPro].map((app) => app.id);
  hiddenIds = [draft, pending, rejected, suspended, ofSuspendedDeveloper].map((app) => app.id);
});
afterAll(() => t.close());

const ids = (body: { data: { id: string }[] }) => body.data.map((app) => app.id);
const list = async (query: string) => {
  const response = await t.call('GET', `/api/apps${query}`);
  expect(response.status).toBe(200);
  return response.body;
};

describe('GET /api/apps', () => {
  test('lists only approved apps of developers in good standing, most installed first by default', async () => {
    const body = await list('');
    expect(ids(body)).toEqual([metricsPro.id, invoice.id, chat.id, calendar.id, metrics.id]);
    expect(body.pagination).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
    for (const hidden of hiddenIds) expect(ids(body)).not.toContain(hidden);
  });

  test('an app is the public view: stats, developer, no owner-only fields', async () => {
    const body = await list('?category=FINANCE');
    const [app] = body.data;
    expect(app).toMatchObject({
      id: invoice.id,
      slug: invoice.slug,
      name: 'Zephyr Invoice Ninja',
      status: 'APPROVED',
      featured: true,
      installCount: 30,
      reviewCount: 10,
      averageRating: 4.5,
      developer: { name: 'Ada Park', companyName: 'Northwind Labs', websiteUrl: 'https://company.example.com' },
    });
    expect(app).not.toHaveProperty('reviewNotes');
    expect(app).not.toHaveProperty('rejectionReason');
    expect(app).not.toHaveProperty('assetChecks');
  });

  test.each([
    ['?category=FINANCE', () => [invoice.id]],
    ['?category=ANALYTICS', () => [metricsPro.id, metrics.id]],
    ['?category=EDUCATION', () => []],
    ['?environment=staging', () => [calendar.id]],
    ['?environment=localhost', () => [metrics.id]],
    ['?environment=production', () => [metricsPro.id, invoice.id, chat.id]],
    ['?featured=true', () => [invoice.id, chat.id]],
    ['?featured=false', () => [metricsPro.id, calendar.id, metrics.id]],
  ])('filter %s alone', async (query, expected) => {
    const body = await list(query);
    expect(ids(body)).toEqual(expected());
    expect(body.pagination.total).toBe(expected().length);
  });

  test.each([
    ['?category=COMMUNICATION&featured=true', () => [chat.id]],
    ['?category=COMMUNICATION&featured=false', () => []],
    ['?category=ANALYTICS&environment=production', () => [metricsPro.id]],
    ['?environment=production&featured=true', () => [invoice.id, chat.id]],
    ['?category=FINANCE&environment=production&featured=true', () => [invoice.id]],
    ['?category=FINANCE&environment=staging', () => []],
    ['?search=metrics&environment=localhost', () => [metrics.id]],
    ['?search=invoice&featured=true', () => [invoice.id]],
    ['?search=invoice&category=ANALYTICS', () => []],
  ])('filters combine with AND: %s', async (query, expected) => {
    expect(ids(await list(query))).toEqual(expected());
  });

  test('sort=installs: install count, descending', async () => {
    expect(ids(await list('?sort=installs'))).toEqual([metricsPro.id, invoice.id, chat.id, calendar.id, metrics.id]);
  });

  test('sort=relevance without a search orders as installs', async () => {
    expect(ids(await list('?sort=relevance'))).toEqual(ids(await list('?sort=installs')));
  });

  test('sort=rating is a Bayesian average: one 5★ review does not beat ten averaging 4.5; ties go to installs', async () => {
    // invoice (ten reviews, 4.5) first; metrics (one 5★) next; the unreviewed follow by installs.
    expect(ids(await list('?sort=rating'))).toEqual([invoice.id, metrics.id, metricsPro.id, chat.id, calendar.id]);
  });

  test('sort=newest: most recently approved first', async () => {
    expect(ids(await list('?sort=newest'))).toEqual([calendar.id, metrics.id, chat.id, invoice.id, metricsPro.id]);
  });

  test('search by a word of the description', async () => {
    expect(ids(await list('?search=throughput'))).toEqual([metrics.id]);
    expect(ids(await list('?search=calendar'))).toEqual([calendar.id]);
  });

  test('search by a stemmed word ("invoices" finds "Invoice")', async () => {
    expect(ids(await list('?search=invoices'))).toEqual([invoice.id]);
  });

  test('an exact name match ranks first, whatever the case, even against a more relevant-looking, more installed app', async () => {
    const body = await list('?search=LUMEN%20METRICS');
    expect(ids(body)).toEqual([metrics.id, metricsPro.id]);
    expect(body.pagination.total).toBe(2);
  });

  test.each([
    ['invoce', () => invoice.id],
    ['Calender', () => calendar.id],
    ['orbit chat brigde', () => chat.id],
    ['Quasr', () => calendar.id],
    ['Zephr', () => invoice.id],
  ])('one typo still finds the app: %s', async (search, expected) => {
    expect(ids(await list(`?search=${encodeURIComponent(search)}`))[0]).toBe(expected());
  });

  test('search never finds apps that are not public', async () => {
    for (const name of [
      'Hidden Draft Invoice',
      'Pending Invoice Planner',
      'Rejected Invoice Tool',
      'Suspended Invoice Widget',
      'Ghost Invoice Ledger',
    ]) {
      const body = await list(`?search=${encodeURIComponent(name)}`);
      for (const hidden of hiddenIds) expect(ids(body)).not.toContain(hidden);
    }
  });

  test('search with a non-relevance sort orders the matches by that sort', async () => {
    expect(ids(await list('?search=metrics&sort=newest'))).toEqual([metrics.id, metricsPro.id]);
    expect(ids(await list('?search=metrics&sort=installs'))).toEqual([metricsPro.id, metrics.id]);
  });

  test('search pages carry the total of all matches, also past the last page', async () => {
    const first = await list('?search=metrics&limit=1');
    expect(first.pagination).toEqual({ page: 1, limit: 1, total: 2, totalPages: 2 });
    const second = await list('?search=metrics&limit=1&page=2');
    expect([...ids(first), ...ids(second)].sort()).toEqual([metrics.id, metricsPro.id].sort());
    const past = await list('?search=metrics&limit=1&page=5');
    expect(past).toEqual({ data: [], pagination: { page: 5, limit: 1, total: 2, totalPages: 2 } });
  });

  test('a search matching nothing is an empty page', async () => {
    const body = await list('?search=xylophone');
    expect(body).toEqual({ data: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0 } });
  });

  test('search text is words, never query syntax: operator soup is a valid search or no match, never a 5xx', async () => {
    const soups = ['-'.repeat(40), '-'.repeat(100), '!(&|<->:*', "''''", 'a & b | !c', '((((((((', 'foo:*', '<-> <2>', '\\\\', '"unclosed'];
    for (const soup of soups) {
      const response = await t.call('GET', `/api/apps?search=${encodeURIComponent(soup)}`);
      expect(response.status, soup).toBe(200);
    }
    // "-word" is the word, not "everything but the word".
    expect((await list('?search=-x')).pagination.total).toBe(0);
    expect(ids(await list('?search=-invoice'))).toEqual([invoice.id]);
    expect(ids(await list('?search=invoice%20OR%20calendar'))).toEqual([]);
  });

  test('pages: limit and page slice the same order; past the end is empty', async () => {
    const first = await list('?limit=2');
    expect(ids(first)).toEqual([metricsPro.id, invoice.id]);
    expect(first.pagination).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3 });
    expect(ids(await list('?limit=2&page=3'))).toEqual([metrics.id]);
    expect((await list('?limit=2&page=4')).data).toEqual([]);
    const deepest = await list('?limit=100&page=100');
    expect(deepest.data).toEqual([]);
    expect(deepest.pagination.total).toBe(5);
  });

  test.each([
    '?limit=0',
    '?limit=101',
    '?page=0',
    '?page=-1',
    '?page=abc',
    '?page=101&limit=100',
    '?page=10001',
    '?category=GAMES',
    '?category=finance',
    '?environment=dev',
    '?featured=yes',
    '?sort=popular',
    '?search=',
    '?search=%20%20',
    `?search=${'a'.repeat(101)}`,
    '?search=tab%09here',
  ])('%s is 400 VALIDATION_FAILED', async (query) => {
    const response = await t.call('GET', `/api/apps${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(response.headers.get('content-type')).toContain('application/problem+json');
  });
});

describe('GET /api/apps/:slug', () => {
  test('an approved app by slug', async () => {
    const response = await t.call('GET', `/api/apps/${invoice.slug}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: invoice.id, slug: invoice.slug, installCount: 30, reviewCount: 10, averageRating: 4.5 });
    expect(response.body.developer).toEqual({ name: 'Ada Park', companyName: 'Northwind Labs', websiteUrl: 'https://company.example.com' });
  });

  test.each([
    ['a draft', () => draft.slug],
    ['a pending app', () => pending.slug],
    ['a rejected app that was never approved', () => rejected.slug],
    ['an unknown slug', () => 'no-such-app'],
  ])('404 NOT_FOUND for %s (never public)', async (_what, slug) => {
    const response = await t.call('GET', `/api/apps/${slug()}`);
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('NOT_FOUND');
  });

  test.each([
    ['a suspended app', () => suspended.slug],
    ['an approved app of a suspended developer', () => ofSuspendedDeveloper.slug],
  ])('410 APP_UNAVAILABLE for %s', async (_what, slug) => {
    const response = await t.call('GET', `/api/apps/${slug()}`);
    expect(response.status).toBe(410);
    expect(response.body.code).toBe('APP_UNAVAILABLE');
  });
});

describe('GET /api/apps/featured/list', () => {
  test('featured public apps, most installed first; never suspended ones or those of suspended developers', async () => {
    const response = await t.call('GET', '/api/apps/featured/list');
    expect(response.status).toBe(200);
    expect(ids(response.body)).toEqual([invoice.id, chat.id]);
    expect(response.body).not.toHaveProperty('pagination');
  });

  test('environment and limit', async () => {
    expect(ids((await t.call('GET', '/api/apps/featured/list?limit=1')).body)).toEqual([invoice.id]);
    expect(ids((await t.call('GET', '/api/apps/featured/list?environment=staging')).body)).toEqual([]);
    expect(ids((await t.call('GET', '/api/apps/featured/list?environment=production')).body)).toEqual([invoice.id, chat.id]);
  });

  test.each(['?limit=0', '?limit=101', '?environment=moon'])('%s is 400', async (query) => {
    const response = await t.call('GET', `/api/apps/featured/list${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });
});

describe('GET /api/apps/categories/list', () => {
  test('all ten categories, counting only public apps', async () => {
    const response = await t.call('GET', '/api/apps/categories/list');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([
      { category: 'PRODUCTIVITY', count: 1 },
      { category: 'UTILITIES', count: 0 },
      { category: 'BUSINESS', count: 0 },
      { category: 'DEVELOPER_TOOLS', count: 0 },
      { category: 'COMMUNICATION', count: 1 },
      { category: 'ANALYTICS', count: 2 },
      { category: 'AI_ML', count: 0 },
      { category: 'FINANCE', count: 1 },
      { category: 'EDUCATION', count: 0 },
      { category: 'OTHER', count: 0 },
    ]);
  });
});

test('the public list, its total and the category counts agree', async () => {
  const categories = (await t.call('GET', '/api/apps/categories/list')).body.data as { count: number }[];
  const total = categories.reduce((sum, c) => sum + c.count, 0);
  expect(total).toBe((await list('')).pagination.total);
  expect(total).toBe(publicIds.length);
});
