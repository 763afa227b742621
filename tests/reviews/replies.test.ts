import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { approvedApp } from '../apps/fixtures.ts';
import { setReviewHidden } from '../../src/modules/reviews/reviews.service.ts';

/** Developers answer their users' reviews; the public list shows the answer on its review. */
let t: TestApp;
let dev: TestDeveloper;
let key: string;
let users = 0;

beforeAll(async () => {
  t = await createTestApp();
  dev = await registerDeveloper(t);
  key = await mintKey(t, dev);
});
afterAll(() => t.close());

/** A review of `app` by a new user who installed it. */
async function review(app: { slug: string }, body: object = { rating: 4, title: 'Good' }) {
  users += 1;
  const token = await t.token(`reply-user-${users}`);
  expect((await t.call('POST', `/api/apps/${app.slug}/install`, { token })).status).toBe(201);
  const response = await t.call('POST', `/api/apps/${app.slug}/reviews`, { token, body });
  expect(response.status).toBe(201);
  return response.body as { id: string };
}

const replyPath = (appId: string, reviewId: string) => `/api/dev/apps/${appId}/reviews/${reviewId}/reply`;
const publicList = async (slug: string) => (await t.call('GET', `/api/apps/${slug}/reviews`)).body.data as any[];
const replyRows = () => t.sql('select review_id, body from review_replies order by review_id');

describe('replying', () => {
  test('PUT writes the reply (201), replaces it (200), and the public list shows it on its review', async () => {
    const app = await approvedApp(t, key);
    const answered = await review(app);
    const unanswered = await review(app, { rating: 1 });

    const first = await t.call('PUT', replyPath(app.id, answered.id), { token: key, body: { body: 'Thank you!\nMore coming soon.' } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ reviewId: answered.id, body: 'Thank you!\nMore coming soon.', repliedAt: expect.any(String) });
    const second = await t.call('PUT', replyPath(app.id, answered.id), { token: key, body: { body: 'Thanks — fixed in 2.1.' } });
    expect(second.status).toBe(200);
    expect(Date.parse(second.body.repliedAt)).toBeGreaterThanOrEqual(Date.parse(first.body.repliedAt));

    const list = await publicList(app.slug);
    expect(list.find((row) => row.id === answered.id).reply).toEqual({ body: 'Thanks — fixed in 2.1.', repliedAt: second.body.repliedAt });
    expect(list.find((row) => row.id === unanswered.id).reply).toBeNull();
    expect(Object.keys(list[0]).sort()).toEqual(['authorName', 'body', 'createdAt', 'id', 'rating', 'reply', 'title', 'updatedAt']);
  });

  test('DELETE returns the reply and removes it; a second DELETE is 404', async () => {
    const app = await approvedApp(t, key);
    const reviewed = await review(app);
    await t.call('PUT', replyPath(app.id, reviewed.id), { token: key, body: { body: 'Noted.' } });
    const deleted = await t.call('DELETE', replyPath(app.id, reviewed.id), { token: key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ reviewId: reviewed.id, body: 'Noted.' });
    expect((await publicList(app.slug))[0].reply).toBeNull();
    const again = await t.call('DELETE', replyPath(app.id, reviewed.id), { token: key });
    expect(again.status).toBe(404);
  });

  test('a reply survives its review being replaced by the reviewer, and goes when the review goes', async () => {
    const app = await approvedApp(t, key);
    users += 1;
    const token = await t.token(`reply-user-${users}`);
    await t.call('POST', `/api/apps/${app.slug}/install`, { token });
    const original = (await t.call('POST', `/api/apps/${app.slug}/reviews`, { token, body: { rating: 2 } })).body;
    await t.call('PUT', replyPath(app.id, original.id), { token: key, body: { body: 'Sorry to hear that.' } });
    await t.call('POST', `/api/apps/${app.slug}/reviews`, { token, body: { rating: 5 } });
    expect((await publicList(app.slug))[0]).toMatchObject({ id: original.id, rating: 5, reply: { body: 'Sorry to hear that.' } });
    await t.sql('delete from reviews where id = ?', [original.id]);
    expect(await t.sql('select 1 from review_replies where review_id = ?', [original.id])).toEqual([]);
  });

  test.each([
    ['an empty body', { body: '' }],
    ['only white space', { body: ' \n\t ' }],
    ['over 2,000 characters', { body: 'x'.repeat(2001) }],
    ['a control character', { body: 'Thanks\u0000' }],
    ['an escape sequence', { body: '\u001b[31mred' }],
    ['no body field', {}],
    ['an unknown field', { body: 'Hi', signature: 'Dev' }],
    ['a number', { body: 42 }],
  ])('400 VALIDATION_FAILED for %s, nothing stored', async (_label, body) => {
    const app = await approvedApp(t, key);
    const reviewed = await review(app);
    const before = await replyRows();
    const response = await t.call('PUT', replyPath(app.id, reviewed.id), { token: key, body });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(await replyRows()).toEqual(before);
  });

  test('2,000 characters with line breaks are accepted', async () => {
    const app = await approvedApp(t, key);
    const reviewed = await review(app);
    const body = `${'a'.repeat(999)}\r\n${'b'.repeat(999)}`;
    expect(body).toHaveLength(2000);
    expect((await t.call('PUT', replyPath(app.id, reviewed.id), { token: key, body: { body } })).status).toBe(201);
  });
});

describe("the developer's list of their app's reviews", () => {
  test('includes hidden reviews, marked, with replies; newest first and paged', async () => {
    const app = await approvedApp(t, key);
    const shown = await review(app, { rating: 5, title: 'Great' });
    const hidden = await review(app, { rating: 1, title: 'Spam spam' });
    await setReviewHidden(t.ctx.orm.em.fork(), t.ctx.jobs, hidden.id, true, { label: 'admin:moderator' });
    await t.call('PUT', replyPath(app.id, hidden.id), { token: key, body: { body: 'We could not reproduce this.' } });

    const response = await t.call('GET', `/api/dev/apps/${app.id}/reviews`, { token: key });
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(response.body.data.map((row: { id: string }) => row.id)).toEqual([hidden.id, shown.id]);
    expect(response.body.data[0]).toMatchObject({ hidden: true, title: 'Spam spam', reply: { body: 'We could not reproduce this.' } });
    expect(response.body.data[1]).toMatchObject({ hidden: false, reply: null });
    expect(
      (await t.call('GET', `/api/dev/apps/${app.id}/reviews?limit=1&page=2`, { token: key })).body.data.map((row: { id: string }) => row.id),
    ).toEqual([shown.id]);
    // The public still sees only the visible one.
    expect((await publicList(app.slug)).map((row) => row.id)).toEqual([shown.id]);
  });
});

describe('who may reply', () => {
  test('APP_READ lists, APP_UPDATE replies; the OAuth token is not an API key', async () => {
    const app = await approvedApp(t, key);
    const reviewed = await review(app);
    const reader = await mintKey(t, dev, ['APP_READ']);
    expect((await t.call('GET', `/api/dev/apps/${app.id}/reviews`, { token: reader })).status).toBe(200);
    const refused = await t.call('PUT', replyPath(app.id, reviewed.id), { token: reader, body: { body: 'Hi' } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('INSUFFICIENT_SCOPE');
    expect((await t.call('GET', `/api/dev/apps/${app.id}/reviews`, { token: await mintKey(t, dev, ['APP_UPDATE']) })).status).toBe(403);
    expect((await t.call('PUT', replyPath(app.id, reviewed.id), { token: dev.oauthToken, body: { body: 'Hi' } })).status).toBe(403);
    expect((await t.call('PUT', replyPath(app.id, reviewed.id), { body: { body: 'Hi' } })).status).toBe(401);
    expect(await replyRows()).not.toContainEqual(expect.objectContaining({ review_id: reviewed.id }));
  });

  test("another developer's app, reviews and replies are 404 and stay untouched", async () => {
    const app = await approvedApp(t, key);
    const reviewed = await review(app);
    await t.call('PUT', replyPath(app.id, reviewed.id), { token: key, body: { body: 'Original answer' } });
    const other = await registerDeveloper(t);
    const otherKey = await mintKey(t, other);
    const theirApp = await approvedApp(t, otherKey);
    const theirReview = await review(theirApp);

    for (const [method, path] of [
      ['GET', `/api/dev/apps/${app.id}/reviews`],
      ['PUT', replyPath(app.id, reviewed.id)],
      ['DELETE', replyPath(app.id, reviewed.id)],
      // Their own app, naming my app's review.
      ['PUT', replyPath(theirApp.id, reviewed.id)],
      ['DELETE', replyPath(theirApp.id, reviewed.id)],
    ] as const) {
      const response = await t.call(method, path, { token: otherKey, body: method === 'PUT' ? { body: 'Hijacked' } : undefined });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    // My app, naming their review.
    expect((await t.call('PUT', replyPath(app.id, theirReview.id), { token: key, body: { body: 'Wrong app' } })).status).toBe(404);
    expect((await publicList(app.slug))[0].reply.body).toBe('Original answer');
    expect(await t.sql('select 1 from review_replies where review_id = ?', [theirReview.id])).toEqual([]);
  });
});
