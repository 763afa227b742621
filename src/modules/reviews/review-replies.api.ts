import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import { IdParams, Paginated, problems } from '../../http/schemas.ts';
import { DeveloperReview, ReplyBody, ReplyView, ReviewReplyParams, ReviewsQuery } from './reviews.model.ts';
import { deleteReply, listAppReviews, putReply } from './review-replies.service.ts';
import { accessProblems, callerOf } from '../teams/access.ts';

/** The developer's view of their app's reviews, and their replies. */
export function reviewRepliesApi(ctx: AppContext, auth: AuthPlugin) {
  return new Elysia({ prefix: '/api/dev/apps', tags: ['Developer apps'] })
    .use(auth)
    .get('/:id/reviews', ({ principal, params, query }) => listAppReviews(ctx.orm.em.fork(), callerOf(principal), params.id, query), {
      apiKey: 'APP_READ',
      params: IdParams,
      query: ReviewsQuery,
      response: { 200: Paginated(DeveloperReview, 'A page of the reviews of your app'), ...problems(...accessProblems('read')) },
      detail: {
        summary: "Your app's reviews, to answer them",
        description:
          'Needs APP_READ. Every review of the app, most recently written first, hidden ones included and marked `hidden: true`, each with your `reply`.',
      },
    })
    .put(
      '/:id/reviews/:reviewId/reply',
      async ({ principal, params, body, status }) => {
        const { reply, created } = await putReply({ em: ctx.orm.em.fork(), jobs: ctx.jobs }, callerOf(principal), params.id, params.reviewId, body);
        return created ? status(201, reply) : status(200, reply);
      },
      {
        apiKey: 'APP_UPDATE',
        params: ReviewReplyParams,
        body: ReplyBody,
        response: { 200: ReplyView, 201: ReplyView, ...problems(...accessProblems('reply'), 'VALIDATION_FAILED') },
        detail: {
          summary: 'Reply to a review (or replace your reply)',
          description:
            'Needs APP_UPDATE. One public reply per review, 1–2,000 characters (line breaks allowed): 201 for the first, 200 when it replaces the earlier one. It shows on the review in the public list. The reviewer is not notified; your webhooks subscribed to `review.replied` get the event.',
        },
      },
    )
    .delete(
      '/:id/reviews/:reviewId/reply',
      ({ principal, params }) => deleteReply(ctx.orm.em.fork(), callerOf(principal), params.id, params.reviewId),
      {
        apiKey: 'APP_UPDATE',
        params: ReviewReplyParams,
        response: { 200: ReplyView, ...problems(...accessProblems('reply')) },
        detail: {
          summary: 'Delete your reply to a review',
          description: 'Needs APP_UPDATE. Returns the deleted reply; 404 when the review has none.',
        },
      },
    );
}
