import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { holdInstallsWatermark, recomputeCategoryCounts, rollUpNewInstalls } from '../stats/stats.service.ts';
import { recountReviewDays } from '../stats/daily-stats.ts';
import { bumpCatalogueVersion } from './catalogue-version.ts';
import { pick, seededRandom, type Random } from '../../lib/seeded-random.ts';
import { CATEGORIES, ENVIRONMENTS, type Category, type Environment } from '../apps/app.entity.ts';
import { renderLongDescription } from '../apps/markdown.ts';
import { RESERVED_SLUGS, slugify } from '../apps/slug.ts';
import { BRANDS, CATEGORY_WORDS, DEMO_DEVELOPERS, EDITIONS, REVIEWER_NAMES, REVIEW_TITLES, SECOND_SENTENCES } from './seed-words.ts';
// Raw SQL here is batch work (D106): the demo seed writes thousands of rows set-wise.

/**
 * Demo data: a few verified developers and N approved listings across every category and
 * environment, with installs and reviews so the sorts mean something. Everything is written
 * with multi-row INSERTs per batch (the events generated inside PostgreSQL), a transaction per
 * batch and stage (see `SeedLanes`); the review counters are computed in bulk, and the installs are
 * counted by the installs roll-up like any others, rather than through one job per app.
 */
export interface SeedResult {
  developers: number;
  apps: number;
  installs: number;
  reviews: number;
}

export const MAX_SEED_APPS = 100_000;
const BATCH_SIZE = 1_000;
const MAX_INSTALLS_PER_APP = 500;
const FEATURED_EVERY = 30;
const DAY_MS = 86_400_000;

interface DemoApp {
  id: string;
  developerId: string;
  slug: string;
  name: string;
  description: string;
  longDescription: string;
  longDescriptionHtml: string;
  category: Category;
  environment: Environment;
  logoUrl: string;
  websiteUrl: string;
  screenshots: string;
  featured: boolean;
  createdAt: string;
  approvedAt: string;
  /** Installs and reviews are generated from the approval (or 60 days ago, if later) until now. */
  eventsSince: string;
  installs: number;
  reviews: number;
  /** Mean rating this app's reviews scatter around. */
  quality: number;
}

/** A name whose slug is free: random brand + noun + edition, numbered once the combinations run out. */
function uniqueName(random: Random, category: Category, taken: Set<string>): { name: string; slug: string } {
  const words = CATEGORY_WORDS[category];
  let name = '';
  for (let attempt = 0; attempt < 30; attempt += 1) {
    name = `${pick(random, BRANDS)} ${pick(random, words.nouns)}${pick(random, EDITIONS)}`;
    if (!taken.has(slugify(name))) break;
  }
  let candidate = name;
  for (let n = 2; taken.has(slugify(candidate)); n += 1) candidate = `${name} ${n}`;
  const slug = slugify(candidate);
  taken.add(slug);
  return { name: candidate, slug };
}

function demoApp(index: number, random: Random, taken: Set<string>, developerIds: string[], now: number): DemoApp {
  const category = CATEGORIES[index % CATEGORIES.length]!;
  // The first few cover every environment; after that most listings are production ones.
  const environment: Environment =
    index < ENVIRONMENTS.length ? ENVIRONMENTS[index]! : random() < 0.7 ? 'production' : random() < 0.67 ? 'staging' : 'localhost';
  const words = CATEGORY_WORDS[category];
  const { name, slug } = uniqueName(random, category, taken);
  const does = pick(random, words.does);
  const audience = pick(random, words.audiences);
  const longDescription = [
    `## What ${name} does`,
    '',
    `${name} ${does} for ${audience}.`,
    '',
    `- ${pick(random, SECOND_SENTENCES)}`,
    `- ${pick(random, words.does).replace(/^./, (c) => c.toUpperCase())}.`,
    '',
    `Questions? See [the documentation](https://${slug}.example.com/docs).`,
  ].join('\n');
  const createdAt = now - Math.floor(random() * 365 * DAY_MS);
  const approvedAt = Math.min(now, createdAt + Math.floor((1 + random() * 9) * DAY_MS));
  const installs = Math.floor((MAX_INSTALLS_PER_APP + 1) ** (random() ** 3)) - 1;
  const screenshots = [1, 2, 3].map((n) => ({
    url: `https://cdn.example.com/demo/${slug}/screenshot-${n}.png`,
    caption: n === 1 ? `${name} at work` : null,
    order: n - 1,
  }));
  return {
    id: Bun.randomUUIDv7(),
    developerId: developerIds[index % developerIds.length]!,
    slug,
    name,
    description: `${name} ${does} for ${audience}. ${pick(random, SECOND_SENTENCES)}`,
    longDescription,
    longDescriptionHtml: renderLongDescription(longDescription) ?? '',
    category,
    environment,
    logoUrl: `https://cdn.example.com/demo/${slug}/logo.png`,
    websiteUrl: `https://${slug}.example.com`,
    screenshots: JSON.stringify(screenshots),
    featured: index % FEATURED_EVERY === 0,
    createdAt: new Date(createdAt).toISOString(),
    approvedAt: new Date(approvedAt).toISOString(),
    eventsSince: new Date(Math.max(approvedAt, now - 60 * DAY_MS)).toISOString(),
    installs,
    reviews: Math.floor(installs * random() * 0.2),
    quality: 2.5 + random() * 2.4,
  };
}

// Arrays carry '' for "none" (nullif turns it back), each column one array parameter.
async function insertDevelopers(em: EntityManager): Promise<string[]> {
  // Accounts are new on every run, even when the listings repeat a seed.
  const run = crypto.randomUUID().slice(0, 8);
  const rows = DEMO_DEVELOPERS.map((developer, i) => ({
    id: Bun.randomUUIDv7(),
    platformUserId: `demo-${run}-${i + 1}`,
    email: `demo-${run}-${i + 1}@example.com`,
    ...developer,
  }));
  await executeNamed(
    em,
    `insert into developers (id, platform_user_id, name, email, company_name, website_url, bio, status, created_at, updated_at)
     select x.id, x.platform_user_id, x.name, x.email, nullif(x.company_name, ''),
            case when x.company_name = '' then null else 'https://' || x.platform_user_id || '.example.com' end,
            'Demo developer account created by the seed command.', 'VERIFIED', now(), now()
     from unnest(:ids::uuid[], :platformUserIds::text[], :names::text[], :emails::text[], :companyNames::text[])
       as x(id, platform_user_id, name, email, company_name)`,
    {
      ids: rows.map((r) => r.id),
      platformUserIds: rows.map((r) => r.platformUserId),
      names: rows.map((r) => r.name),
      emails: rows.map((r) => r.email),
      companyNames: rows.map((r) => r.companyName ?? ''),
    },
  );
  return rows.map((r) => r.id);
}

const columnOf =
  (apps: DemoApp[]) =>
  <K extends keyof DemoApp>(key: K) =>
    apps.map((app) => app[key]);

/** The listings and their slugs (the catalogue's triggers add their search rows, stats rows and words). */
async function insertListings(em: EntityManager, apps: DemoApp[]): Promise<void> {
  const column = columnOf(apps);
  await executeNamed(
    em,
    `insert into apps (id, developer_id, slug, name, description, long_description, long_description_html, category, environment,
                       logo_url, website_url, screenshots, status, featured, version, submitted_at, reviewed_at,
                       first_approved_at, created_at, updated_at)
     select x.id, x.developer_id, x.slug, x.name, x.description, x.long_description, nullif(x.long_description_html, ''), x.category,
            x.environment, x.logo_url, x.website_url, x.screenshots, 'APPROVED', x.featured, 1, x.created_at, x.approved_at,
            x.approved_at, x.created_at, x.approved_at
     from unnest(:id::uuid[], :developerId::uuid[], :slug::text[], :name::text[], :description::text[], :longDescription::text[],
                 :longDescriptionHtml::text[], :category::text[], :environment::text[], :logoUrl::text[], :websiteUrl::text[], :screenshots::jsonb[],
                 :featured::boolean[], :createdAt::timestamptz[], :approvedAt::timestamptz[])
       as x(id, developer_id, slug, name, description, long_description, long_description_html, category, environment,
            logo_url, website_url, screenshots, featured, created_at, approved_at)`,
    {
      id: column('id'),
      developerId: column('developerId'),
      slug: column('slug'),
      name: column('name'),
      description: column('description'),
      longDescription: column('longDescription'),
      longDescriptionHtml: column('longDescriptionHtml'),
      category: column('category'),
      environment: column('environment'),
      logoUrl: column('logoUrl'),
      websiteUrl: column('websiteUrl'),
      screenshots: column('screenshots'),
      featured: column('featured'),
      createdAt: column('createdAt'),
      approvedAt: column('approvedAt'),
    },
  );
  await executeNamed(
    em,
    `insert into app_slugs (slug, app_id, created_at)
     select x.slug, x.id, x.created_at from unnest(:slug::text[], :id::uuid[], :createdAt::timestamptz[]) as x(slug, id, created_at)`,
    { slug: column('slug'), id: column('id'), createdAt: column('createdAt') },
  );
}

/** The listings' installs, in a transaction that holds the installs watermark like every install. */
async function insertInstalls(em: EntityManager, apps: DemoApp[]): Promise<void> {
  const column = columnOf(apps);
  await holdInstallsWatermark(em);
  // Reviewers are the first `reviews` installers of each app, installed with their platform account.
  await executeNamed(
    em,
    `insert into installs (app_id, installer, platform_user_id, installed_at)
     select x.id,
            case when g <= x.reviews then 'user:demo-user-' || g else 'installation:demo-' || g end,
            case when g <= x.reviews then 'demo-user-' || g end,
            x.since + random() * (now() - x.since)
     from unnest(:id::uuid[], :installs::int[], :reviews::int[], :eventsSince::timestamptz[]) as x(id, installs, reviews, since),
          generate_series(1, x.installs) g`,
    { id: column('id'), installs: column('installs'), reviews: column('reviews'), eventsSince: column('eventsSince') },
  );
}

/** The listings' reviews, their counters and their review days. */
async function insertReviews(em: EntityManager, apps: DemoApp[]): Promise<void> {
  const column = columnOf(apps);
  const titles = [1, 2, 3, 4, 5].flatMap((stars) => REVIEW_TITLES[stars]!);
  await executeNamed(
    em,
    `insert into reviews (id, app_id, platform_user_id, author_name, rating, title, body, created_at, updated_at)
     select gen_random_uuid(), r.id, 'demo-user-' || r.g, (:reviewerNames::text[])[1 + r.g % :reviewerCount], r.rating,
            (:titles::text[])[(r.rating - 1) * :titlesPerRating + 1 + floor(random() * :titlesPerRating)::int], null, r.at, r.at
     from (select x.id, g, least(5, greatest(1, round(x.quality + (random() - 0.5) * 2.5)))::int as rating,
                  x.since + random() * (now() - x.since) as at
           from unnest(:id::uuid[], :reviews::int[], :quality::float8[], :eventsSince::timestamptz[]) as x(id, reviews, quality, since),
                generate_series(1, x.reviews) g) r`,
    {
      reviewerNames: [...REVIEWER_NAMES],
      reviewerCount: REVIEWER_NAMES.length,
      titles,
      titlesPerRating: REVIEW_TITLES[1]!.length,
      id: column('id'),
      reviews: column('reviews'),
      quality: column('quality'),
      eventsSince: column('eventsSince'),
    },
  );
  // The same numbers `recomputeAppStats` derives from the review rows, for the whole batch at once (installs are the roll-up's).
  await executeNamed(
    em,
    `update app_stats s set review_count = r.n, rating_sum = r.total, average_rating = round(r.total::numeric / r.n, 2), updated_at = now()
     from (select app_id, count(*)::int as n, sum(rating)::int as total from reviews
           where app_id = any(:id::uuid[]) and not hidden group by app_id) r
     where s.app_id = r.app_id`,
    { id: column('id') },
  );
  await recountReviewDays(em, column('id'));
}

/**
 * The batches' writing, pipelined over connections so PostgreSQL works on both cores: a batch's
 * listings are committed first (its installs and reviews refer to them; rows another open
 * transaction inserted would not be there for them), then its installs and its reviews are written
 * side by side while the next batch's listings are, and the roll-up follows the committed installs.
 * Each lane keeps its batches in order. The first failure stops the seed; what was committed stays.
 */
class SeedLanes {
  private listings: Promise<void> = Promise.resolve();
  private installs: Promise<void> = Promise.resolve();
  private reviews: Promise<void> = Promise.resolve();
  private rollUp: Promise<unknown> = Promise.resolve();
  /** The installs of the batches before, awaited so generation runs at most a couple of batches ahead. */
  private backlog: Promise<void>[] = [];

  constructor(private readonly em: EntityManager) {}

  async add(batch: DemoApp[]): Promise<void> {
    const write = (stage: (tx: EntityManager, apps: DemoApp[]) => Promise<void>) => () => this.em.transactional((tx) => stage(tx, batch));
    const listed = this.listings.then(write(insertListings));
    this.listings = listed;
    this.installs = Promise.all([this.installs, listed]).then(write(insertInstalls));
    this.reviews = Promise.all([this.reviews, listed]).then(write(insertReviews));
    // One roll-up at a time, each catching up with whatever installs have been committed by then.
    this.rollUp = Promise.all([this.rollUp, this.installs]).then(() => rollUpNewInstalls(this.em));
    for (const lane of [this.listings, this.installs, this.reviews, this.rollUp]) lane.catch(() => {});
    this.backlog.push(this.installs);
    await listed;
    if (this.backlog.length > 2) await this.backlog.shift();
  }

  /** Waits for every lane; throws the first failure. */
  async drain(): Promise<void> {
    await Promise.all([this.listings, this.installs, this.reviews, this.rollUp]);
  }
}

export async function seedApps(em: EntityManager, count: number, options: { seed?: number } = {}): Promise<SeedResult> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SEED_APPS) {
    throw new RangeError(`The number of apps must be a whole number from 1 to ${MAX_SEED_APPS}`);
  }
  const random = seededRandom(options.seed ?? Date.now());
  const now = Date.now();
  const developerIds = await em.transactional((tx) => insertDevelopers(tx));
  const slugs = await executeNamed<{ slug: string }>(em.fork(), 'select slug from app_slugs', {});
  const taken = new Set([...RESERVED_SLUGS, ...slugs.map((row) => row.slug)]);
  const totals: SeedResult = { developers: developerIds.length, apps: 0, installs: 0, reviews: 0 };
  const lanes = new SeedLanes(em);
  try {
    for (let start = 0; start < count; start += BATCH_SIZE) {
      const batch: DemoApp[] = [];
      // Generated in order (a seed gives the same catalogue), yielding now and then so the lanes' statements go out.
      for (let i = start; i < Math.min(start + BATCH_SIZE, count); i += 1) {
        batch.push(demoApp(i, random, taken, developerIds, now));
        if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
      }
      await lanes.add(batch);
      totals.apps += batch.length;
      for (const app of batch) {
        totals.installs += app.installs;
        totals.reviews += app.reviews;
      }
    }
  } finally {
    await lanes.drain();
  }
  // The lanes' last roll-up followed the last installs: every seeded install is counted by now.
  await em.transactional((tx) => bumpCatalogueVersion(tx));
  await recomputeCategoryCounts(em);
  return totals;
}
