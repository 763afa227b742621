import { t, type Static } from 'elysia';
import { MultiLine, PageQuery, SingleLine, Timestamp } from '../../http/schemas.ts';

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

/** What moderation sees: the public view plus where the review belongs and whether it is hidden. */
export type ModeratedReview = ReviewView & { appId: string; hidden: boolean };

export const ReviewsQuery = t.Object({ ...PageQuery });
export type ReviewsQuery = Static<typeof ReviewsQuery>;
