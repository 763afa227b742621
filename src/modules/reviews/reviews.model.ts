import { t, type Static } from 'elysia';
import { Integer, MultiLine, PageQuery, SingleLine, Timestamp, Uuid } from '../../http/schemas.ts';

export const ReviewBody = t.Object(
  {
    rating: Integer({ minimum: 1, maximum: 5, description: 'Whole stars, 1 to 5' }),
    title: t.Optional(SingleLine(1, 120)),
    body: t.Optional(MultiLine(5_000)),
  },
  {
    additionalProperties: false,
    description: 'Your review: whole stars, and optionally a title and a text',
    examples: [{ rating: 5, title: 'Keeps me focused', body: 'The 25-minute sessions fit our sprint rhythm.' }],
  },
);
export type ReviewInput = Static<typeof ReviewBody>;

export const ReviewView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    rating: Integer(),
    title: t.Union([t.String(), t.Null()]),
    body: t.Union([t.String(), t.Null()]),
    authorName: t.Union([t.String(), t.Null()], { description: "The reviewer's name from their platform account, when it has one" }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: "A user's review of an app" },
);
export type ReviewView = Static<typeof ReviewView>;

export const ReviewReply = t.Object({
  body: t.String(),
  repliedAt: t.String({ format: 'date-time', description: 'When the reply was last written' }),
});
export type ReviewReply = Static<typeof ReviewReply>;

const replyField = {
  reply: t.Union([ReviewReply, t.Null()], { description: "The app developer's public reply; null when there is none" }),
};

/** A review as the public list shows it: with the developer's reply. */
export const ListedReview = t.Composite([ReviewView, t.Object(replyField)], { description: 'A review with the developer’s reply' });
export type ListedReview = Static<typeof ListedReview>;

/** What the app's developer sees: hidden reviews too, marked, so they can be answered. */
export const DeveloperReview = t.Composite(
  [ReviewView, t.Object({ ...replyField, hidden: t.Boolean({ description: 'Hidden by moderation: not in the public list or the rating' }) })],
  { description: 'A review of your app, hidden ones included, with your reply' },
);
export type DeveloperReview = Static<typeof DeveloperReview>;

export const ReplyBody = t.Object(
  { body: MultiLine(2_000, '1 to 2,000 characters, not only white space; line breaks allowed') },
  { additionalProperties: false, description: 'Your public reply to a review', examples: [{ body: 'Thanks! Fixed in 2.1.' }] },
);
export type ReplyInput = Static<typeof ReplyBody>;

/** The reply as PUT and DELETE return it. */
export const ReplyView = t.Composite([t.Object({ reviewId: t.String({ format: 'uuid' }) }), ReviewReply], {
  description: 'Your reply, as it is shown on the review',
});
export type ReplyView = Static<typeof ReplyView>;

export const ReviewReplyParams = t.Object({ id: Uuid, reviewId: Uuid });

/** What moderation sees: the public view plus where the review belongs and whether it is hidden. */
export type ModeratedReview = ReviewView & { appId: string; hidden: boolean };

export const ReviewsQuery = t.Object({ ...PageQuery });
export type ReviewsQuery = Static<typeof ReviewsQuery>;
