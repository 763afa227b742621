import { LockMode, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { ApiError, notFound } from '../../http/problem.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { enqueueAppStats } from '../stats/stats.service.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import { pageOf, pageWindow, type Page } from '../../http/pagination.ts';
import { findPublicAppId } from '../catalogue/catalogue.service.ts';
import type { PlatformIdentity } from '../identity/platform-identity.ts';
import { hasInstalled, userInstallerKey } from '../installs/installs.service.ts';
import { emitAppEvent } from '../webhooks/webhook-events.ts';
import type {
  DeveloperReview,
  ListedReview,
  ModeratedReview,
  ReviewInput,
  ReviewReply as ReviewReplyView,
  ReviewView,
  ReviewsQuery,
} from './reviews.model.ts';
import { Review } from './review.entity.ts';
import { ReviewReply } from './review-reply.entity.ts';
import { App } from '../apps/app.entity.ts';

/** A review as a raw statement returns it (the upsert below); timestamps arrive as PostgreSQL text. */
interface ReviewRow {
  id: string;
  rating: number;
  title: string | null;
  body: string | null;
  author_name: string | null;
  created_at: string;
  updated_at: string;
}

const viewOfRow = (row: ReviewRow): ReviewView => ({
  id: row.id,
  rating: row.rating,
  title: row.title,
  body: row.body,
  authorName: row.author_name,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

const toView = (review: Review): ReviewView => ({
  id: review.id,
  rating: review.rating,
  title: review.title ?? null,
  body: review.body ?? null,
  authorName: review.authorName ?? null,
  createdAt: review.createdAt.toISOString(),
  updatedAt: review.updatedAt.toISOString(),
});

const replyOf = (reply: ReviewReply | undefined): ReviewReplyView | null =>
  reply ? { body: reply.body, repliedAt: reply.updatedAt.toISOString() } : null;

/** The replies to these reviews, by review id (a second query: the replies of one page). */
async function repliesTo(em: EntityManager, reviews: Review[]): Promise<Map<string, ReviewReply>> {
  if (reviews.length === 0) return new Map();
  const replies = await em.find(ReviewReply, { reviewId: { $in: reviews.map((review) => review.id) } });
  return new Map(replies.map((reply) => [reply.reviewId, reply]));
}

/** One page of reviews with their replies, most recently written first, and how many match. */
export async function repliedReviews(em: EntityManager, where: FilterQuery<Review>, page: { limit: number; offset: number }) {
  const [reviews, total] = await em.findAndCount(Review, where, { orderBy: { updatedAt: 'desc', id: 'desc' }, ...page });
  const replies = await repliesTo(em, reviews);
  return { rows: reviews.map((review) => ({ review, reply: replies.get(review.id) })), total };
}

export const toDeveloperReview = ({ review, reply }: { review: Review; reply: ReviewReply | undefined }): DeveloperReview => ({
  ...toView(review),
  reply: replyOf(reply),
  hidden: review.hidden,
});

/** One review as its app's developer sees it (webhook payloads, replies), read afresh. */
export async function developerReview(em: EntityManager, reviewId: string): Promise<DeveloperReview> {
  const [review, reply] = await Promise.all([
    em.findOne(Review, { id: reviewId }, { refresh: true }),
    em.findOne(ReviewReply, { reviewId }, { refresh: true }),
  ]);
  if (!review) throw notFound('Review');
  return toDeveloperReview({ review, reply: reply ?? undefined });
}

/**
 * Creates the user's review of a public app, or replaces it (one per user per app; a hidden
 * review stays hidden). Only a user who installed the app with their platform token may review it,
 * and never its own developer.
 */
export async function submitReview(
  em: EntityManager,
  jobs: JobQueue,
  slug: string,
  identity: PlatformIdentity,
  input: ReviewInput,
): Promise<{ review: ReviewView; created: boolean }> {
  return em.transactional(async (tx) => {
    const appId = await findPublicAppId(tx, slug);
    const own = await tx.count(App, { id: appId, developer: { platformUserId: identity.subject } });
    if (own > 0) throw new ApiError(403, 'OWN_APP', "An app's developer cannot review it");
    if (!(await hasInstalled(tx, appId, userInstallerKey(identity.subject)))) {
      throw new ApiError(403, 'INSTALL_REQUIRED', 'Only a user who installed this app while signed in can review it');
    }
    // Atomic upsert (raw SQL): one review per user per app, and `xmax = 0` holds only for a row this
    // statement inserted, not for one it updated (201 versus 200), even when two first posts race.
    const [row] = await executeNamed<ReviewRow & { created: boolean }>(
      tx,
      `insert into reviews (id, app_id, platform_user_id, author_name, rating, title, body, created_at, updated_at)
       values (:id, :appId, :platformUserId, :authorName, :rating, :title, :body, now(), now())
       on conflict (app_id, platform_user_id) do update set
         author_name = excluded.author_name, rating = excluded.rating, title = excluded.title, body = excluded.body,
         updated_at = excluded.updated_at
       returning id, rating, title, body, author_name, created_at, updated_at, (xmax = 0) as created`,
      {
        id: Bun.randomUUIDv7(),
        appId,
        platformUserId: identity.subject,
        authorName: identity.name ?? null,
        rating: input.rating,
        title: input.title ?? null,
        body: input.body ?? null,
      },
    );
    await enqueueAppStats(jobs, tx, appId);
    await emitAppEvent(jobs, tx, row!.created ? 'review.created' : 'review.updated', appId, async () => ({
      review: await developerReview(tx, row!.id),
    }));
    return { review: viewOfRow(row!), created: row!.created };
  });
}

/** Visible reviews of a public app with the developer's replies, most recently written first. */
export async function listReviews(em: EntityManager, slug: string, query: ReviewsQuery): Promise<Page<ListedReview>> {
  const { page, limit, offset } = pageWindow(query);
  const appId = await findPublicAppId(em, slug);
  const { rows, total } = await repliedReviews(em, { app: appId, hidden: false }, { limit, offset });
  return pageOf(
    rows.map(({ review, reply }) => ({ ...toView(review), reply: replyOf(reply) })),
    page,
    limit,
    total,
  );
}

/** Moderation: hides or shows a review (audited); the app's rating is recomputed without it. Its author's `updatedAt` is kept. */
export async function setReviewHidden(em: EntityManager, jobs: JobQueue, reviewId: string, hidden: boolean, actor: Actor): Promise<ModeratedReview> {
  return em.transactional(async (tx) => {
    const review = await tx.findOne(Review, { id: reviewId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!review) throw notFound('Review');
    if (review.hidden !== hidden) {
      recordAudit(tx, actor, {
        action: hidden ? 'review.hide' : 'review.show',
        subjectType: 'review',
        subjectId: reviewId,
        before: { hidden: review.hidden },
        after: { hidden },
      });
      review.hidden = hidden;
      await enqueueAppStats(jobs, tx, review.app.id);
    }
    return { ...toView(review), appId: review.app.id, hidden: review.hidden };
  });
}
