import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../../http/problem.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { enqueueAppStats } from '../stats/stats.service.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import { pageOf, pageWindow, type Page } from '../../http/pagination.ts';
import { findPublicAppId } from '../catalogue/catalogue.service.ts';
import type { PlatformIdentity } from '../identity/platform-identity.ts';
import { userInstallerKey } from '../installs/installs.service.ts';
import { emitAppEvent } from '../webhooks/webhook-events.ts';
import type { DeveloperReview, ListedReview, ModeratedReview, ReviewInput, ReviewReply, ReviewView, ReviewsQuery } from './reviews.model.ts';

interface ReviewRow {
  id: string;
  rating: number;
  title: string | null;
  body: string | null;
  author_name: string | null;
  /** Timestamps arrive as PostgreSQL text from raw queries. */
  created_at: string;
  updated_at: string;
}

const toView = (row: ReviewRow): ReviewView => ({
  id: row.id,
  rating: row.rating,
  title: row.title,
  body: row.body,
  authorName: row.author_name,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

/** A review row read with its reply (`review_replies`) and moderation flag. */
interface RepliedReviewRow extends ReviewRow {
  hidden: boolean;
  reply_body: string | null;
  replied_at: string | null;
}

const replyOf = (row: RepliedReviewRow): ReviewReply | null =>
  row.reply_body === null ? null : { body: row.reply_body, repliedAt: new Date(row.replied_at!).toISOString() };

export const toDeveloperReview = (row: RepliedReviewRow): DeveloperReview => ({ ...toView(row), reply: replyOf(row), hidden: row.hidden });

/** Reviews with their replies, most recently written first; `where` filters the reviews (`r`). */
export async function repliedReviews(em: EntityManager, where: string, params: unknown[], page = { limit: 1, offset: 0 }) {
  return em.execute<RepliedReviewRow[]>(
    `select r.id, r.rating, r.title, r.body, r.author_name, r.created_at, r.updated_at, r.hidden,
            rr.body as reply_body, rr.updated_at as replied_at
     from reviews r left join review_replies rr on rr.review_id = r.id
     where ${where} order by r.updated_at desc, r.id desc limit ? offset ?`,
    [...params, page.limit, page.offset],
  );
}

/** One review as its app's developer sees it (webhook payloads, replies). */
export async function developerReview(em: EntityManager, reviewId: string): Promise<DeveloperReview> {
  const [row] = await repliedReviews(em, 'r.id = ?', [reviewId]);
  if (!row) throw notFound('Review');
  return toDeveloperReview(row);
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
    const own = await tx.execute('select 1 from apps a join developers d on d.id = a.developer_id where a.id = ? and d.platform_user_id = ?', [
      appId,
      identity.subject,
    ]);
    if (own.length > 0) throw new ApiError(403, 'OWN_APP', "An app's developer cannot review it");
    const installed = await tx.execute('select 1 from installs where app_id = ? and installer = ?', [appId, userInstallerKey(identity.subject)]);
    if (installed.length === 0) {
      throw new ApiError(403, 'INSTALL_REQUIRED', 'Only a user who installed this app while signed in can review it');
    }
    // `xmax = 0` holds only for a row this statement inserted, not for one it updated: 201 versus 200.
    const [row] = await tx.execute<(ReviewRow & { created: boolean })[]>(
      `insert into reviews (id, app_id, platform_user_id, author_name, rating, title, body, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, now(), now())
       on conflict (app_id, platform_user_id) do update set
         author_name = excluded.author_name, rating = excluded.rating, title = excluded.title, body = excluded.body,
         updated_at = excluded.updated_at
       returning id, rating, title, body, author_name, created_at, updated_at, (xmax = 0) as created`,
      [Bun.randomUUIDv7(), appId, identity.subject, identity.name ?? null, input.rating, input.title ?? null, input.body ?? null],
    );
    await enqueueAppStats(jobs, tx, appId);
    await emitAppEvent(jobs, tx, row!.created ? 'review.created' : 'review.updated', appId, async () => ({
      review: await developerReview(tx, row!.id),
    }));
    return { review: toView(row!), created: row!.created };
  });
}

/** Visible reviews of a public app with the developer's replies, most recently written first. */
export async function listReviews(em: EntityManager, slug: string, query: ReviewsQuery): Promise<Page<ListedReview>> {
  const { page, limit, offset } = pageWindow(query);
  const appId = await findPublicAppId(em, slug);
  const [rows, counted] = await Promise.all([
    repliedReviews(em, 'r.app_id = ? and not r.hidden', [appId], { limit, offset }),
    em.execute<{ total: number }[]>('select count(*)::int as total from reviews where app_id = ? and not hidden', [appId]),
  ]);
  return pageOf(
    rows.map((row) => ({ ...toView(row), reply: replyOf(row) })),
    page,
    limit,
    counted[0]?.total ?? 0,
  );
}

/** Moderation: hides or shows a review (audited); the app's rating is recomputed without it. Its author's `updatedAt` is kept. */
export async function setReviewHidden(em: EntityManager, jobs: JobQueue, reviewId: string, hidden: boolean, actor: Actor): Promise<ModeratedReview> {
  return em.transactional(async (tx) => {
    const [current] = await tx.execute<{ hidden: boolean }[]>('select hidden from reviews where id = ? for update', [reviewId]);
    if (!current) throw notFound('Review');
    const [row] = await tx.execute<(ReviewRow & { app_id: string; hidden: boolean })[]>(
      `update reviews set hidden = ? where id = ?
       returning id, app_id, hidden, rating, title, body, author_name, created_at, updated_at`,
      [hidden, reviewId],
    );
    if (current.hidden !== hidden) {
      recordAudit(tx, actor, {
        action: hidden ? 'review.hide' : 'review.show',
        subjectType: 'review',
        subjectId: reviewId,
        before: { hidden: current.hidden },
        after: { hidden },
      });
      await enqueueAppStats(jobs, tx, row!.app_id);
    }
    return { ...toView(row!), appId: row!.app_id, hidden: row!.hidden };
  });
}
