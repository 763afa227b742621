import { defineEntity, p } from '@mikro-orm/postgresql';
import { App } from '../apps/app.entity.ts';

/** One review per platform user per app; a second post replaces the first. */
const ReviewSchema = defineEntity({
  name: 'Review',
  tableName: 'reviews',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    app: () => p.manyToOne(App).deleteRule('cascade'),
    platformUserId: p.string(),
    authorName: p.string().nullable(),
    rating: p.integer(),
    title: p.string().nullable(),
    body: p.text().nullable(),
    hidden: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** When its author last wrote it; moderation (hiding) leaves it as it was. */
    updatedAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Review extends ReviewSchema.class {}
ReviewSchema.setClass(Review);
