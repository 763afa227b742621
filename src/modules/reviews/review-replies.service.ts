import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound, validationFailed } from '../../http/problem.ts';
import { pageOf, pageWindow, type Page } from '../../http/pagination.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { emitAppEvent } from '../webhooks/webhook-events.ts';
import { authorizeApp, type Caller } from '../teams/access.ts';
import type { DeveloperReview, ReplyInput, ReplyView, ReviewsQuery } from './reviews.model.ts';
import { developerReview, repliedReviews, toDeveloperReview } from './reviews.service.ts';

/**
 * The app developer's side of reviews: every review of their app (hidden ones marked) and one
 * public reply per review. The reviewer is not told (no user e-mail is held); the developer's
 * own webhooks get `review.replied`. Another developer's app or review is 404.
 */
export async function listAppReviews(em: EntityManager, caller: Caller, appId: string, query: ReviewsQuery): Promise<Page<DeveloperReview>> {
  const { page, limit, offset } = pageWindow(query);
  await authorizeApp(em, caller, appId, 'read');
  const [rows, [counted]] = await Promise.all([
    repliedReviews(em, 'r.app_id = ?', [appId], { limit, offset }),
    em.execute<{ total: number }[]>('select count(*)::int as total from reviews where app_id = ?', [appId]),
  ]);
  return pageOf(rows.map(toDeveloperReview), page, limit, counted?.total ?? 0);
}

/** Locks the review (one writer of its reply at a time) once the caller may reply on its app. */
async function lockOwnReview(tx: EntityManager, caller: Caller, appId: string, reviewId: string): Promise<void> {
  await authorizeApp(tx, caller, appId, 'reply');
  const [review] = await tx.execute('select 1 from reviews where id = ? and app_id = ? for update', [reviewId, appId]);
  if (!review) throw notFound('Review');
}

/** Writes (or replaces) the reply; `created` tells a first reply (201) from a replacement (200). */
export async function putReply(
  { em, jobs }: { em: EntityManager; jobs: JobQueue },
  caller: Caller,
  appId: string,
  reviewId: string,
  input: ReplyInput,
): Promise<{ reply: ReplyView; created: boolean }> {
  if (input.body.trim() === '') throw validationFailed('The request body is invalid', [{ path: 'body', message: 'must not be empty' }]);
  return em.transactional(async (tx) => {
    await lockOwnReview(tx, caller, appId, reviewId);
    const [row] = await tx.execute<{ body: string; updated_at: string; created: boolean }[]>(
      `insert into review_replies (review_id, body, created_at, updated_at) values (?, ?, now(), now())
       on conflict (review_id) do update set body = excluded.body, updated_at = excluded.updated_at
       returning body, updated_at, (xmax = 0) as created`,
      [reviewId, input.body],
    );
    await emitAppEvent(jobs, tx, 'review.replied', appId, async () => ({ review: await developerReview(tx, reviewId) }));
    return { reply: { reviewId, body: row!.body, repliedAt: new Date(row!.updated_at).toISOString() }, created: row!.created };
  });
}

/** Removes the reply and returns what it was; a review without one is 404. */
export async function deleteReply(em: EntityManager, caller: Caller, appId: string, reviewId: string): Promise<ReplyView> {
  return em.transactional(async (tx) => {
    await lockOwnReview(tx, caller, appId, reviewId);
    const [row] = await tx.execute<{ body: string; updated_at: string }[]>(
      'delete from review_replies where review_id = ? returning body, updated_at',
      [reviewId],
    );
    if (!row) throw notFound('Reply');
    return { reviewId, body: row.body, repliedAt: new Date(row.updated_at).toISOString() };
  });
}
