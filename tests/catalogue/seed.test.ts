import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { seedApps, type SeedResult } from '../../src/modules/catalogue/seed.service.ts';
import { CATEGORIES, ENVIRONMENTS } from '../../src/modules/apps/app.entity.ts';

let t: TestApp;
let seeded: SeedResult;

beforeAll(async () => {
  t = await createTestApp();
  seeded = await seedApps(t.ctx.orm.em.fork(), 500, { seed: 42 });
}, 60_000);
afterAll(() => t.close());

test('seeding 500 apps: all approved, visible in the catalogue, across every category and environment', async () => {
  expect(seeded.apps).toBe(500);
  expect(seeded.developers).toBeGreaterThan(1);
  const list = await t.call('GET', '/api/apps?limit=100');
  expect(list.status).toBe(200);
  expect(list.body.pagination.total).toBe(500);

  const categories = (await t.call('GET', '/api/apps/categories/list')).body.data as { category: string; count: number }[];
  expect(categories.map((c) => c.category)).toEqual([...CATEGORIES]);
  for (const category of categories) expect(category.count).toBe(50);
  for (const environment of ENVIRONMENTS) {
    expect((await t.call('GET', `/api/apps?environment=${environment}&limit=1`)).body.pagination.total).toBeGreaterThan(0);
  }
  const featured = await t.call('GET', '/api/apps/featured/list?limit=100');
  expect(featured.body.data.length).toBeGreaterThan(0);
  expect(featured.body.data.every((app: { featured: boolean }) => app.featured)).toBe(true);
});

test('seeded listings read like real ones, with unique names and slugs, and open by slug', async () => {
  const rows = await t.sql<{ names: number; slugs: number; reserved: number; approved: number; first_approved: number }>(
    `select count(distinct a.name)::int as names, count(distinct a.slug)::int as slugs,
            (select count(*)::int from app_slugs s join apps x on x.id = s.app_id and x.slug = s.slug) as reserved,
            count(*) filter (where status = 'APPROVED')::int as approved,
            count(*) filter (where first_approved_at is not null)::int as first_approved
     from apps a`,
  );
  expect(rows[0]).toEqual({ names: 500, slugs: 500, reserved: 500, approved: 500, first_approved: 500 });

  const [top] = (await t.call('GET', '/api/apps?limit=1')).body.data;
  expect(top.name).toMatch(/^[A-Z][a-z]+ [A-Z]/);
  expect(top.description.length).toBeGreaterThan(20);
  expect(top.developer.name.length).toBeGreaterThan(0);
  // The list is of summaries; the long description and screenshots come with the app itself.
  const bySlug = await t.call('GET', `/api/apps/${top.slug}`);
  expect(bySlug.status).toBe(200);
  expect(bySlug.body.id).toBe(top.id);
  expect(bySlug.body.longDescriptionHtml).toContain('<h2>');
  expect(bySlug.body.screenshots.length).toBeGreaterThanOrEqual(2);

  // Its exact name finds it first.
  const search = await t.call('GET', `/api/apps?search=${encodeURIComponent(top.name)}`);
  expect(search.body.data[0].id).toBe(top.id);
});

test('the seeded counters equal what the rollup derives from the seeded events', async () => {
  expect(seeded.installs).toBeGreaterThan(0);
  expect(seeded.reviews).toBeGreaterThan(0);
  const mismatches = await t.sql(
    `select a.id from apps a
     left join app_stats s on s.app_id = a.id
     left join (select app_id, count(*)::int as n from installs group by app_id) i on i.app_id = a.id
     left join (select app_id, count(*)::int as n, round(avg(rating), 2) as avg from reviews where not hidden group by app_id) r on r.app_id = a.id
     where s.app_id is null or s.install_count <> coalesce(i.n, 0) or s.review_count <> coalesce(r.n, 0)
        or s.average_rating <> coalesce(r.avg, 0)`,
  );
  expect(mismatches).toEqual([]);
  const [totals] = await t.sql<{ installs: number; reviews: number }>(
    'select (select count(*)::int from installs) as installs, (select count(*)::int from reviews) as reviews',
  );
  expect(totals).toEqual({ installs: seeded.installs, reviews: seeded.reviews });
  // Every review comes from a user who installed the app with their platform account.
  const orphans = await t.sql(
    `select r.id from reviews r left join installs i on i.app_id = r.app_id and i.installer = 'user:' || r.platform_user_id where i.id is null`,
  );
  expect(orphans).toEqual([]);
});

test('sorting by installs and by rating is meaningful on the demo data', async () => {
  const byInstalls = (await t.call('GET', '/api/apps?sort=installs&limit=20')).body.data as { installCount: number }[];
  expect(byInstalls[0]!.installCount).toBeGreaterThan(byInstalls[19]!.installCount);
  const byRating = (await t.call('GET', '/api/apps?sort=rating&limit=5')).body.data as { reviewCount: number; averageRating: number }[];
  expect(byRating.every((app) => app.reviewCount > 0 && app.averageRating >= 3.5)).toBe(true);
});

test('seeding again adds to the catalogue without reusing a name or slug', async () => {
  const again = await seedApps(t.ctx.orm.em.fork(), 100, { seed: 42 });
  expect(again.apps).toBe(100);
  const [row] = await t.sql<{ apps: number; slugs: number; names: number }>(
    'select count(*)::int as apps, count(distinct slug)::int as slugs, count(distinct name)::int as names from apps',
  );
  expect(row).toEqual({ apps: 600, slugs: 600, names: 600 });
  expect((await t.call('GET', '/api/apps?limit=1')).body.pagination.total).toBe(600);
  const categories = (await t.call('GET', '/api/apps/categories/list')).body.data as { count: number }[];
  expect(categories.reduce((sum, c) => sum + c.count, 0)).toBe(600);
}, 30_000);

test('a count outside 1…100,000 is refused', async () => {
  for (const count of [0, -1, 1.5, 100_001]) {
    await expect(seedApps(t.ctx.orm.em.fork(), count)).rejects.toThrow(/1 to 100000/);
  }
});
