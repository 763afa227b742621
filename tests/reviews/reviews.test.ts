import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper, type FixtureApp } from '../support/fixtures.ts';
import { refusal } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { mintDevToken } from '../../src/modules/identity/platform-identity.ts';
import { setReviewHidden } from '../../src/modules/reviews/reviews.service.ts';

let t: TestApp;
let developerId: string;
let users = 0;

beforeAll(async () => {
  t = await createTestApp();
  developerId = await insertDeveloper(t);
});
afterAll(() => t.close());

/** A platform user with a token (carrying a display name), who may already have installed `app`. */
async function user(options: { installed?: FixtureApp; name?: string } = {}) {
  users += 1;
  const subject = `reviewer-${users}`;
  const token = await mintDevToken(t.ctx.config.oauth, t.ctx.config.dataDir, { subject, name: options.name });
  if (options.installed) {
    const response = await t.call('POST', `/api/apps/${options.installed.slug}/install`, { token });
    expect(response.status).toBe(201);
  }
  return { subject, token };
}

const review = (app: FixtureApp, token: string | undefined, body: unknown) => t.call('POST', `/api/apps/${app.slug}/reviews`, { token, body });
const reviewRows = (appId: string) =>
  t.sql<{ id: string; rating: number; title: string | null; hidden: boolean; platform_user_id: string }>(
    'select id, rating, title, hidden, platform_user_id from reviews where app_id = ? order by created_at',
    [appId],
  );
const newApp = () => insertApp(t, { developerId });

describe.concurrent('POST /api/apps/:slug/reviews', () => {
  test("an app's own developer may install it but not review it: 403 OWN_APP, nothing stored", async () => {
    const owner = await registerDeveloper(t);
    const app = await insertApp(t, { developerId: owner.id });
    expect((await t.call('POST', `/api/apps/${app.slug}/install`, { token: owner.oauthToken })).status).toBe(201);
    const response = await review(app, owner.oauthToken, { rating: 5, title: 'Best app ever' });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('OWN_APP');
    expect(await reviewRows(app.id)).toEqual([]);
  });

  test('a user who installed with their token reviews: 201, then replacing it is 200 and leaves one row', async () => {
    const app = await newApp();
    const { token } = await user({ installed: app, name: 'Lena W.' });
    const created = await review(app, token, { rating: 4, title: 'Useful', body: 'Saves time.\nEvery week.' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ rating: 4, title: 'Useful', body: 'Saves time.\nEvery week.', authorName: 'Lena W.' });
    expect(Object.keys(created.body).sort()).toEqual(['authorName', 'body', 'createdAt', 'id', 'rating', 'title', 'updatedAt']);

    const replaced = await review(app, token, { rating: 2 });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: created.body.id, rating: 2, title: null, body: null, createdAt: created.body.createdAt });
    expect(Date.parse(replaced.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));
    const rows = await reviewRows(app.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.rating).toBe(2);
  });

  test('reviewCount and averageRating reflect reviews within 5 s', async () => {
    const app = await newApp();
    for (const rating of [5, 4, 4]) {
      const { token } = await user({ installed: app });
      expect((await review(app, token, { rating })).status).toBe(201);
    }
    const view = await eventually(async () => {
      const response = await t.call('GET', `/api/apps/${app.slug}`);
      return response.body.reviewCount === 3 && response.body;
    });
    expect(view.averageRating).toBe(4.33);
    expect(view.installCount).toBe(3);
  });

  test('authorName is null when the token carries no name', async () => {
    const app = await newApp();
    const { token } = await user({ installed: app });
    const created = await review(app, token, { rating: 3 });
    expect(created.status).toBe(201);
    expect(created.body.authorName).toBeNull();
  });

  describe('refusals change nothing', () => {
    test('403 INSTALL_REQUIRED for a user who never installed the app', async () => {
      const app = await newApp();
      const { token } = await user();
      const response = await review(app, token, { rating: 5 });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('INSTALL_REQUIRED');
      expect(await reviewRows(app.id)).toEqual([]);
    });

    test('403 INSTALL_REQUIRED for a user who installed another app, or installed anonymously', async () => {
      const app = await newApp();
      const other = await newApp();
      const { token } = await user({ installed: other });
      await t.call('POST', `/api/apps/${app.slug}/install`, { body: { installationId: 'their-workspace' } });
      const response = await review(app, token, { rating: 5 });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('INSTALL_REQUIRED');
      expect(await reviewRows(app.id)).toEqual([]);
    });

    test('401 without a token, with an invalid one, or with an API key', async () => {
      const app = await newApp();
      const developer = await registerDeveloper(t);
      for (const token of [undefined, 'garbage', await mintKey(t, developer)]) {
        const response = await review(app, token, { rating: 5 });
        expect(response.status).toBe(401);
        expect(response.body.code).toBe('UNAUTHENTICATED');
      }
      expect(await reviewRows(app.id)).toEqual([]);
    });

    test.each([
      ['rating 0', { rating: 0 }],
      ['rating 6', { rating: 6 }],
      ['a fractional rating', { rating: 4.5 }],
      ['no rating', { title: 'Nice' }],
      ['a title of 121 characters', { rating: 5, title: 't'.repeat(121) }],
      ['an empty title', { rating: 5, title: '' }],
      ['a body of 5001 characters', { rating: 5, body: 'b'.repeat(5001) }],
      ['a control character in the title', { rating: 5, title: 'bell\u0007' }],
      ['an unknown field', { rating: 5, stars: 5 }],
    ])('400 VALIDATION_FAILED for %s', async (_what, body) => {
      const app = await newApp();
      const { token } = await user({ installed: app });
      const response = await review(app, token, body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(await reviewRows(app.id)).toEqual([]);
    });

    test('a replacement with an invalid rating keeps the existing review', async () => {
      const app = await newApp();
      const { token } = await user({ installed: app });
      await review(app, token, { rating: 4, title: 'Good' });
      expect((await review(app, token, { rating: 9 })).status).toBe(400);
      expect((await reviewRows(app.id)).map((row) => [row.rating, row.title])).toEqual([[4, 'Good']]);
    });

    test('404 for an unknown slug or a draft, 410 for an app suspended after the install', async () => {
      const app = await newApp();
      const { token } = await user({ installed: app });
      const draft = await insertApp(t, { developerId, status: 'DRAFT' });
      expect((await review(draft, token, { rating: 5 })).status).toBe(404);
      expect((await t.call('POST', '/api/apps/no-such-app/reviews', { token, body: { rating: 5 } })).status).toBe(404);
      await t.sql(`update apps set status = 'SUSPENDED' where id = ?`, [app.id]);
      const response = await review(app, token, { rating: 5 });
      expect(response.status).toBe(410);
      expect(response.body.code).toBe('APP_UNAVAILABLE');
      expect(await reviewRows(app.id)).toEqual([]);
    });
  });
});

describe.concurrent('GET /api/apps/:slug/reviews', () => {
  test('pages visible reviews, most recently written first, without the reviewer account id', async () => {
    const app = await newApp();
    const titles = ['first', 'second', 'third'];
    const tokens: string[] = [];
    for (const title of titles) {
      const { token } = await user({ installed: app });
      tokens.push(token);
      expect((await review(app, token, { rating: 3, title })).status).toBe(201);
    }
    const page1 = await t.call('GET', `/api/apps/${app.slug}/reviews?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((r: { title: string }) => r.title)).toEqual(['third', 'second']);
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    for (const item of page1.body.data) expect(JSON.stringify(item)).not.toContain('reviewer-');
    const page2 = await t.call('GET', `/api/apps/${app.slug}/reviews?limit=2&page=2`);
    expect(page2.body.data.map((r: { title: string }) => r.title)).toEqual(['first']);

    // Rewriting a review brings it to the top.
    expect((await review(app, tokens[0]!, { rating: 5, title: 'first, revised' })).status).toBe(200);
    const again = await t.call('GET', `/api/apps/${app.slug}/reviews`);
    expect(again.body.data.map((r: { title: string }) => r.title)).toEqual(['first, revised', 'third', 'second']);
  });

  test.each(['?limit=0', '?limit=101', '?page=0', '?page=101&limit=100'])('%s is 400', async (query) => {
    const app = await newApp();
    const response = await t.call('GET', `/api/apps/${app.slug}/reviews${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
  });

  test('404 for a slug that was never public, 410 for a suspended app', async () => {
    const draft = await insertApp(t, { developerId, status: 'DRAFT' });
    const suspended = await insertApp(t, { developerId, status: 'SUSPENDED' });
    expect((await t.call('GET', `/api/apps/${draft.slug}/reviews`)).status).toBe(404);
    expect((await t.call('GET', `/api/apps/${suspended.slug}/reviews`)).status).toBe(410);
  });
});

describe.concurrent('setReviewHidden (moderation)', () => {
  test('hides a review from the list and the rating, audited; showing it brings it back', async () => {
    const app = await newApp();
    const good = await user({ installed: app });
    const spam = await user({ installed: app });
    await review(app, good.token, { rating: 5, title: 'Great' });
    const spammy = await review(app, spam.token, { rating: 1, title: 'Buy cheap watches' });
    await eventually(async () => (await t.call('GET', `/api/apps/${app.slug}`)).body.reviewCount === 2);

    const admin = { label: 'admin:test-moderator' };
    const hidden = await setReviewHidden(t.ctx.orm.em.fork(), t.ctx.jobs, spammy.body.id, true, admin);
    expect(hidden).toMatchObject({ id: spammy.body.id, appId: app.id, hidden: true, updatedAt: spammy.body.updatedAt });

    const listed = await t.call('GET', `/api/apps/${app.slug}/reviews`);
    expect(listed.body.data.map((r: { title: string }) => r.title)).toEqual(['Great']);
    expect(listed.body.pagination.total).toBe(1);
    const view = await eventually(async () => {
      const response = await t.call('GET', `/api/apps/${app.slug}`);
      return response.body.reviewCount === 1 && response.body;
    });
    expect(view.averageRating).toBe(5);

    const audit = await t.sql<{ actor: string; action: string; before: unknown; after: unknown }>(
      `select actor, action, before, after from audit_log where subject_type = 'review' and subject_id = ?`,
      [spammy.body.id],
    );
    expect(audit).toEqual([{ actor: 'admin:test-moderator', action: 'review.hide', before: { hidden: false }, after: { hidden: true } }]);

    // The author replacing a hidden review does not un-hide it.
    expect((await review(app, spam.token, { rating: 1, title: 'Still spam' })).status).toBe(200);
    expect((await reviewRows(app.id)).find((row) => row.id === spammy.body.id)?.hidden).toBe(true);

    await setReviewHidden(t.ctx.orm.em.fork(), t.ctx.jobs, spammy.body.id, false, admin);
    expect((await t.call('GET', `/api/apps/${app.slug}/reviews`)).body.pagination.total).toBe(2);
    await eventually(async () => (await t.call('GET', `/api/apps/${app.slug}`)).body.reviewCount === 2);
  }, 20_000);

  test('an unknown review is 404', async () => {
    const result = await refusal(setReviewHidden(t.ctx.orm.em.fork(), t.ctx.jobs, Bun.randomUUIDv7(), true, { label: 'admin:x' }));
    expect(result).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
