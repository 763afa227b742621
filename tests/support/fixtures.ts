import { recomputeAppStats, recomputeCategoryCounts, rollUpNewInstalls } from '../../src/modules/stats/stats.service.ts';
import type { AppStatus, Category, Environment } from '../../src/modules/apps/app.entity.ts';
import { slugify } from '../../src/modules/apps/slug.ts';
import type { TestApp } from './harness.ts';

/**
 * Rows written straight into the database, for tests of the public side that need listings in
 * a given state (and with given history) without walking each one through the developer API.
 */
let counter = 0;

export interface AppFixture {
  developerId: string;
  name?: string;
  description?: string;
  category?: Category;
  environment?: Environment;
  status?: AppStatus;
  featured?: boolean;
  /** When the app was first approved; defaults to now for APPROVED and SUSPENDED apps, else never. */
  firstApprovedAt?: Date | null;
}

export interface FixtureApp {
  id: string;
  slug: string;
  name: string;
}

const FIXTURE_SCREENSHOTS = [
  { url: 'https://cdn.example.com/1.png', caption: null, order: 0 },
  { url: 'https://cdn.example.com/2.png', caption: null, order: 1 },
];

export async function insertApp(t: TestApp, fixture: AppFixture): Promise<FixtureApp> {
  counter += 1;
  const name = fixture.name ?? `Fixture App ${counter}`;
  const slug = `${slugify(name)}-${counter}`;
  const status = fixture.status ?? 'APPROVED';
  const firstApprovedAt =
    fixture.firstApprovedAt !== undefined ? fixture.firstApprovedAt : status === 'APPROVED' || status === 'SUSPENDED' ? new Date() : null;
  const id = Bun.randomUUIDv7();
  await t.sql(
    `insert into apps (id, developer_id, slug, name, description, category, environment, logo_url, screenshots, status,
                       featured, first_approved_at, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, 'https://cdn.example.com/logo.png', ?, ?, ?, ?, now(), now())`,
    [
      id,
      fixture.developerId,
      slug,
      name,
      fixture.description ?? `${name} keeps tasks in order.`,
      fixture.category ?? 'PRODUCTIVITY',
      fixture.environment ?? 'production',
      // Complete, as every listing past DRAFT is.
      JSON.stringify(FIXTURE_SCREENSHOTS),
      status,
      fixture.featured ?? false,
      firstApprovedAt ? firstApprovedAt.toISOString() : null,
    ],
  );
  await t.sql('insert into app_slugs (slug, app_id) values (?, ?)', [slug, id]);
  return { id, slug, name };
}

/** `count` approved apps in one statement, slugs `<prefix>-1` … `<prefix>-<count>`, named `<Prefix> N`. */
export async function insertManyApps(
  t: TestApp,
  developerId: string,
  prefix: string,
  count: number,
  description = 'An app among many.',
): Promise<void> {
  await t.sql(
    `insert into apps (id, developer_id, slug, name, description, category, environment, logo_url, screenshots, status,
                       first_approved_at, created_at, updated_at)
     select gen_random_uuid(), ?, ? || '-' || g, initcap(?) || ' ' || g, ?, 'PRODUCTIVITY', 'production',
            'https://cdn.example.com/logo.png', '[]', 'APPROVED', now(), now(), now()
     from generate_series(1, ?) g`,
    [developerId, prefix, prefix, description, count],
  );
}

/** A developer row in the given state (no account, no keys: the public side only shows their name). */
export async function insertDeveloper(
  t: TestApp,
  fixture: { name?: string; companyName?: string | null; status?: 'PENDING_VERIFICATION' | 'VERIFIED' | 'SUSPENDED' } = {},
): Promise<string> {
  counter += 1;
  const id = Bun.randomUUIDv7();
  await t.sql(
    `insert into developers (id, platform_user_id, name, email, company_name, website_url, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, now(), now())`,
    [
      id,
      `fixture-developer-${counter}-${id}`,
      fixture.name ?? `Fixture Developer ${counter}`,
      `fixture-${counter}-${id}@example.com`,
      fixture.companyName ?? null,
      fixture.companyName ? 'https://company.example.com' : null,
      fixture.status ?? 'VERIFIED',
    ],
  );
  return id;
}

/** Install and review events for an app, then its stats rolled up as the jobs would. */
export async function addEvents(t: TestApp, appId: string, events: { installs?: number; ratings?: number[] }): Promise<void> {
  const ratings = events.ratings ?? [];
  const installs = Math.max(events.installs ?? 0, ratings.length);
  if (installs > 0) {
    await t.sql(
      `insert into installs (app_id, installer, platform_user_id)
       select ?, 'user:fixture-user-' || g, 'fixture-user-' || g from generate_series(1, ?) g`,
      [appId, installs],
    );
  }
  for (const [i, rating] of ratings.entries()) {
    await t.sql(`insert into reviews (id, app_id, platform_user_id, rating, created_at, updated_at) values (?, ?, ?, ?, now(), now())`, [
      Bun.randomUUIDv7(),
      appId,
      `fixture-user-${i + 1}`,
      rating,
    ]);
  }
  await rollUpNewInstalls(t.ctx.orm.em.fork());
  await recomputeAppStats(t.ctx.orm.em.fork(), appId);
  await rollUpNewInstalls(t.ctx.orm.em.fork());
}

export const refreshCategoryCounts = (t: TestApp) => recomputeCategoryCounts(t.ctx.orm.em.fork());
