import { defineEntity, p } from '@mikro-orm/postgresql';

/** The app developer's one public reply to a review (the review's id is the reply's). */
const ReviewReplySchema = defineEntity({
  name: 'ReviewReply',
  tableName: 'review_replies',
  properties: {
    reviewId: p.uuid().primary(),
    body: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export class ReviewReply extends ReviewReplySchema.class {}
ReviewReplySchema.setClass(ReviewReply);
