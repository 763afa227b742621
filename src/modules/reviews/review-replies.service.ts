import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { notFound, validationFailed } from '../../http/problem.ts';
import { pageOf, pageWindow, type Page } from '../../http/pagination.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { emitAppEvent } from '../webhooks/webhook-events.ts';
import { authorizeApp, type Caller } from '../teams/access.ts';
import type { DeveloperReview, ReplyInput, ReplyView, ReviewsQuery } from './reviews.model.ts';
import { developerReview, repliedReviews, toDeveloperReview } from './reviews.service.ts';
import { Review } from './review.entity.ts';
import { ReviewReply } from './review-reply.entity.ts';

/**
 * The app developer's side of reviews: every review of their app (hidden ones marked) and one
 * public reply per review. The reviewer is not told (no user e-mail is held); the developer's
 * own webhooks get `review.replied`. Another developer's app or review is 404.
 */
export async function listAppReviews(em: EntityManager, caller: Caller, appId: string, query: ReviewsQuery): Promise<Page<DeveloperReview>> {
  const { page, limit, offset } = pageWindow(query);
  await authorizeApp(em, caller, appId, 'read');
  const { rows, total } = await repliedReviews(em, { app: appId }, { limit, offset });
  return pageOf(rows.map(toDeveloperReview), page, limit, total);
}

/** Locks the review (one writer of its reply at a time) once the caller may reply on its app. */
async function lockOwnReview(tx: EntityManager, caller: Caller, appId: string, reviewId: string): Promise<void> {
  await authorizeApp(tx, caller, appId, 'reply');
  const review = await tx.findOne(Review, { id: reviewId, app: appId }, { lockMode: LockMode.PESSIMISTIC_WRITE, fields: ['id'] });
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
    // The review's row lock makes this the only writer of its reply.
    const existing = await tx.findOne(ReviewReply, { reviewId }, { refresh: true });
    const reply = existing ?? tx.create(ReviewReply, { reviewId, body: input.body });
    reply.body = input.body;
    if (existing) reply.updatedAt = new Date();
    await tx.flush();
    await emitAppEvent(jobs, tx, 'review.replied', appId, async () => ({ review: await developerReview(tx, reviewId) }));
    return { reply: { reviewId, body: reply.body, repliedAt: reply.updatedAt.toISOString() }, created: !existing };
  });
}

/** Removes the reply and returns what it was; a review without one is 404. */
export async function deleteReply(em: EntityManager, caller: Caller, appId: string, reviewId: string): Promise<ReplyView> {
  return em.transactional(async (tx) => {
    await lockOwnReview(tx, caller, appId, reviewId);
    const reply = await tx.findOne(ReviewReply, { reviewId }, { refresh: true });
    if (!reply) throw notFound('Reply');
    tx.remove(reply);
    return { reviewId, body: reply.body, repliedAt: reply.updatedAt.toISOString() };
  });
}
