import { t, type Static } from 'elysia';
import { MultiLine, PageQuery, SingleLine, Timestamp, Uuid } from '../../http/schemas.ts';

export const ReviewBody = t.Object(
  {
    rating: t.Integer({ minimum: 1, maximum: 5, description: 'Whole stars, 1 to 5' }),
    title: t.Optional(SingleLine(1, 120)),
    body: t.Optional(MultiLine(5_000)),
  },
  { additionalProperties: false },
);
export type ReviewInput = Static<typeof ReviewBody>;

export const ReviewView = t.Object({
  id: t.String({ format: 'uuid' }),
  rating: t.Integer(),
  title: t.Union([t.String(), t.Null()]),
  body: t.Union([t.String(), t.Null()]),
  authorName: t.Union([t.String(), t.Null()], { description: "The reviewer's name from their platform account, when it has one" }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type ReviewView = Static<typeof ReviewView>;

export const ReviewReply = t.Object({
  body: t.String(),
  repliedAt: t.String({ format: 'date-time', description: 'When the reply was last written' }),
});
export type ReviewReply = Static<typeof ReviewReply>;

const replyField = { reply: t.Union([ReviewReply, t.Null()], { description: "The app developer's public reply; null when there is none" }) };

/** A review as the public list shows it: with the developer's reply. */
export const ListedReview = t.Composite([ReviewView, t.Object(replyField)]);
export type ListedReview = Static<typeof ListedReview>;

/** What the app's developer sees: hidden reviews too, marked, so they can be answered. */
export const DeveloperReview = t.Composite([
  ReviewView,
  t.Object({ ...replyField, hidden: t.Boolean({ description: 'Hidden by moderation: not in the public list or the rating' }) }),
]);
export type DeveloperReview = Static<typeof DeveloperReview>;

export const ReplyBody = t.Object(
  { body: MultiLine(2_000, '1 to 2,000 characters, not only white space; line breaks allowed') },
  { additionalProperties: false },
);
export type ReplyInput = Static<typeof ReplyBody>;

/** The reply as PUT and DELETE return it. */
export const ReplyView = t.Composite([t.Object({ reviewId: t.String({ format: 'uuid' }) }), ReviewReply]);
export type ReplyView = Static<typeof ReplyView>;

export const ReviewReplyParams = t.Object({ id: Uuid, reviewId: Uuid });

/** What moderation sees: the public view plus where the review belongs and whether it is hidden. */
export type ModeratedReview = ReviewView & { appId: string; hidden: boolean };

export const ReviewsQuery = t.Object({ ...PageQuery });
export type ReviewsQuery = Static<typeof ReviewsQuery>;
