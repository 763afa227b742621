import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { insertApp, type FixtureApp } from '../support/fixtures.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { deleteApp } from '../../src/modules/apps/apps.service.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { setReviewHidden } from '../../src/modules/reviews/reviews.service.ts';
import { CATEGORIES, type AppStatus, type Category } from '../../src/modules/apps/app.entity.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';

/**
 * The counters are rolled up by jobs from event rows. This drives a long, seeded, random-looking
 * mix of installs, reviews, moderation and lifecycle changes through the real entry points,
 * checks each response against a model of who may do what, then compares every counter the API
 * shows with what SQL computes directly from the event rows.
 */
let t: TestApp;

interface ModelDeveloper extends TestDeveloper {
  key: string;
  suspended: boolean;
}
interface ModelApp extends FixtureApp {
  developer: ModelDeveloper;
  category: Category;
  status: AppStatus;
  everApproved: boolean;
  deleted: boolean;
}

const developers: ModelDeveloper[] = [];
const apps: ModelApp[] = [];
const users: { subject: string; token: string }[] = [];

beforeAll(async () => {
  t = await createTestApp();
  for (let d = 0; d < 4; d += 1) {
    const developer = await registerDeveloper(t);
    developers.push({ ...developer, key: await mintKey(t, developer, ['ANALYTICS_READ']), suspended: false });
  }
  for (let i = 0; i < 24; i += 1) {
    const developer = developers[i % developers.length]!;
    const category = CATEGORIES[(i * 7) % CATEGORIES.length]!;
    const status: AppStatus = i % 4 === 3 ? 'DRAFT' : 'PENDING';
    const app = await insertApp(t, { developerId: developer.id, category, status });
    apps.push({ ...app, developer, category, status, everApproved: false, deleted: false });
  }
  for (let u = 0; u < 6; u += 1) users.push({ subject: `sequence-user-${u}`, token: await t.token(`sequence-user-${u}`) });
});
afterAll(() => t.close());

/** mulberry32, so the sequence is the same on every run. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { next, pick: <T>(items: T[]): T | undefined => items[Math.floor(next() * items.length)] };
}

const isPublic = (app: ModelApp) => !app.deleted && app.status === 'APPROVED' && !app.developer.suspended;
/** What GET /api/apps/:slug (and so install and review) answers for the app's slug. */
const visibility = (app: ModelApp) => (isPublic(app) ? 200 : app.everApproved && !app.deleted ? 410 : 404);
const deps = () => ({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs });

test('after a long random sequence, every counter equals what the event rows say', async () => {
  const random = seeded(20261125);
  const installedWithToken = new Set<string>();
  const reviewed = new Set<string>();
  const tally: Record<string, number> = {};

  // Half the pending listings start out approved, so there is something to install from the first step.
  for (const app of apps.filter((a) => a.status === 'PENDING').slice(0, 9)) {
    await decideApp(deps(), app.id, 'approve', { actor: CLI_ACTOR });
    app.status = 'APPROVED';
    app.everApproved = true;
  }

  for (let step = 0; step < 300; step += 1) {
    const roll = random.next();
    const live = apps.filter((app) => !app.deleted);
    if (roll < 0.35) {
      const app = random.pick(live)!;
      const user = random.pick(users)!;
      const how = random.next();
      const options =
        how < 0.6 ? { token: user.token } : how < 0.85 ? { body: { installationId: `workspace-${Math.floor(random.next() * 5)}` } } : {};
      const response = await t.call('POST', `/api/apps/${app.slug}/install`, options);
      const expected = visibility(app) === 200 ? 201 : visibility(app);
      expect({ step, status: response.status }).toEqual({ step, status: expected });
      if (response.status === 201 && 'token' in options) installedWithToken.add(`${user.subject}/${app.id}`);
      tally.install = (tally.install ?? 0) + 1;
    } else if (roll < 0.65) {
      // Mostly users who did install with their token (new reviews and replacements), sometimes anyone.
      const [subject, appId] = (random.next() < 0.75 && random.pick([...installedWithToken])?.split('/')) || [
        random.pick(users)!.subject,
        random.pick(live)!.id,
      ];
      const app = apps.find((a) => a.id === appId)!;
      const user = users.find((u) => u.subject === subject)!;
      const response = await t.call('POST', `/api/apps/${app.slug}/reviews`, {
        token: user.token,
        body: { rating: 1 + Math.floor(random.next() * 5), title: `Step ${step}` },
      });
      const pair = `${user.subject}/${app.id}`;
      const expected = visibility(app) !== 200 ? visibility(app) : !installedWithToken.has(pair) ? 403 : reviewed.has(pair) ? 200 : 201;
      expect({ step, status: response.status }).toEqual({ step, status: expected });
      if (expected === 201) reviewed.add(pair);
      tally.review = (tally.review ?? 0) + 1;
    } else if (roll < 0.69) {
      const [review] = await t.sql<{ id: string; hidden: boolean }>('select id, hidden from reviews order by random() limit 1');
      if (review) await setReviewHidden(t.ctx.orm.em.fork(), t.ctx.jobs, review.id, !review.hidden, { label: 'admin:sequence' });
      tally.moderate = (tally.moderate ?? 0) + 1;
    } else if (roll < 0.77) {
      const app = random.pick(live.filter((a) => a.status === 'PENDING'));
      if (app) {
        await decideApp(deps(), app.id, 'approve', { actor: CLI_ACTOR });
        app.status = 'APPROVED';
        app.everApproved = true;
        tally.approve = (tally.approve ?? 0) + 1;
      }
    } else if (roll < 0.83) {
      const app = random.pick(live.filter((a) => a.status === 'APPROVED'));
      if (app) {
        await decideApp(deps(), app.id, 'suspend', { actor: CLI_ACTOR });
        app.status = 'SUSPENDED';
        tally.suspend = (tally.suspend ?? 0) + 1;
      }
    } else if (roll < 0.89) {
      const app = random.pick(live.filter((a) => a.status === 'SUSPENDED'));
      if (app) {
        await decideApp(deps(), app.id, 'relist', { actor: CLI_ACTOR });
        app.status = 'APPROVED';
        tally.relist = (tally.relist ?? 0) + 1;
      }
    } else if (roll < 0.94) {
      const developer = random.pick(developers)!;
      await transitionDeveloper(deps(), developer.id, developer.suspended ? 'reinstate' : 'suspend', CLI_ACTOR);
      developer.suspended = !developer.suspended;
      tally.developer = (tally.developer ?? 0) + 1;
    } else {
      const app = random.pick(live.filter((a) => a.status === 'DRAFT'));
      if (app) {
        await deleteApp(t.ctx.orm.em.fork(), { developerId: app.developer.id, keyTeamId: null }, app.id);
        app.deleted = true;
        tally.deleteDraft = (tally.deleteDraft ?? 0) + 1;
      }
    }
  }
  // The sequence exercised every kind of event.
  for (const kind of ['install', 'review', 'moderate', 'approve', 'suspend', 'relist', 'developer', 'deleteDraft']) {
    expect({ kind, happened: (tally[kind] ?? 0) > 0 }).toEqual({ kind, happened: true });
  }

  // Reinstate everyone, so the public list shows the apps of every developer at the end as well.
  for (const developer of developers.filter((d) => d.suspended)) {
    await transitionDeveloper(deps(), developer.id, 'reinstate', CLI_ACTOR);
    developer.suspended = false;
  }
  // …then suspend one again, so the final counts also exclude a suspended developer's apps.
  const lastSuspended = developers.find((d) => apps.some((a) => a.developer === d && a.status === 'APPROVED'))!;
  await transitionDeveloper(deps(), lastSuspended.id, 'suspend', CLI_ACTOR);
  lastSuspended.suspended = true;

  type Stats = { installCount: number; reviewCount: number; averageRating: number };
  const fromEvents = async () => {
    const rows = await t.sql<{ id: string; installs: number; reviews: number; average: string }>(
      `select a.id, coalesce(i.n, 0)::int as installs, coalesce(r.n, 0)::int as reviews, coalesce(r.average, 0) as average
       from apps a
       left join (select app_id, count(*) as n from installs group by app_id) i on i.app_id = a.id
       left join (select app_id, count(*) as n, round(avg(rating), 2) as average from reviews where not hidden group by app_id) r
         on r.app_id = a.id
       order by a.id`,
    );
    return Object.fromEntries(
      rows.map((row) => [row.id, { installCount: row.installs, reviewCount: row.reviews, averageRating: Number(row.average) }]),
    ) as Record<string, Stats>;
  };
  const categoriesFromRows = async () => {
    const rows = await t.sql<{ category: string; count: number }>(
      `select c.category, count(a.id)::int as count
       from unnest(array[${CATEGORIES.map(() => '?').join(', ')}]) with ordinality as c(category, position)
       left join apps a on a.category = c.category and a.status = 'APPROVED'
         and exists (select 1 from developers d where d.id = a.developer_id and d.status <> 'SUSPENDED')
       group by c.category, c.position order by c.position`,
      [...CATEGORIES],
    );
    return rows;
  };

  /**
   * Every app through its owner's analytics (the stats rows, for a suspended developer whose keys
   * no longer work), and the public ones through the public list too.
   */
  const fromApi = async () => {
    const owner: Record<string, Stats> = {};
    for (const app of apps.filter((a) => !a.deleted)) {
      if (app.developer.suspended) {
        const [row] = await t.sql<{ install_count: number; review_count: number; average_rating: string }>(
          'select install_count, review_count, average_rating from app_stats where app_id = ?',
          [app.id],
        );
        owner[app.id] = {
          installCount: row?.install_count ?? 0,
          reviewCount: row?.review_count ?? 0,
          averageRating: Number(row?.average_rating ?? 0),
        };
        continue;
      }
      const response = await t.call('GET', `/api/dev/apps/${app.id}/analytics`, { token: app.developer.key });
      expect(response.status).toBe(200);
      const { installCount, reviewCount, averageRating } = response.body;
      owner[app.id] = { installCount, reviewCount, averageRating };
    }
    const listed: Record<string, Stats> = {};
    const list = await t.call('GET', '/api/apps?limit=100');
    for (const app of list.body.data) {
      listed[app.id] = { installCount: app.installCount, reviewCount: app.reviewCount, averageRating: app.averageRating };
    }
    const categories = (await t.call('GET', '/api/apps/categories/list')).body.data;
    return { owner, listed, total: list.body.pagination.total as number, categories };
  };

  const expectedStats = await fromEvents();
  const expectedCategories = await categoriesFromRows();
  const modelCategories = CATEGORIES.map((category) => ({
    category,
    count: apps.filter((a) => a.category === category && isPublic(a)).length,
  }));
  // The model of the sequence and the rows agree on what is public.
  expect(expectedCategories).toEqual(modelCategories);
  const publicIds = apps.filter(isPublic).map((a) => a.id);
  const expectedListed = Object.fromEntries(publicIds.map((id) => [id, expectedStats[id]!]));

  // The rollup jobs catch up within 5 s of the last event.
  const deadline = Date.now() + 5_000;
  let actual = await fromApi();
  const settled = () =>
    Bun.deepEquals(actual.owner, expectedStats) &&
    Bun.deepEquals(actual.listed, expectedListed) &&
    Bun.deepEquals(actual.categories, expectedCategories);
  while (!settled() && Date.now() < deadline) {
    await Bun.sleep(50);
    actual = await fromApi();
  }
  expect(actual.owner).toEqual(expectedStats);
  expect(actual.listed).toEqual(expectedListed);
  expect(actual.categories).toEqual(expectedCategories);
  expect(actual.total).toBe(publicIds.length);
  expect(expectedCategories.reduce((sum, c) => sum + c.count, 0)).toBe(publicIds.length);
  // Deleted drafts are gone, with nothing left behind.
  const deletedIds = apps.filter((a) => a.deleted).map((a) => a.id);
  expect(Object.keys(expectedStats).filter((id) => deletedIds.includes(id))).toEqual([]);
}, 120_000);
