import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, listPageOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { Review } from './review.entity.ts';
import type { ModerationRow } from '../../../views/admin/reviews.ts';
export type { ModerationRow } from '../../../views/admin/reviews.ts';

const toRow = (review: Review): ModerationRow => ({
  id: review.id,
  rating: review.rating,
  title: review.title ?? null,
  body: review.body ?? null,
  authorName: review.authorName ?? null,
  hidden: review.hidden,
  app: { id: review.app.id, name: review.app.name, slug: review.app.slug },
  updatedAt: review.updatedAt,
});

export const VISIBILITIES = ['visible', 'hidden'] as const;

export async function listReviewsForModeration(
  em: EntityManager,
  filter: ListQuery & { visibility: (typeof VISIBILITIES)[number] | null },
): Promise<ListPage<ModerationRow>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where: FilterQuery<Review> = {
    ...(filter.visibility && { hidden: filter.visibility === 'hidden' }),
    ...(pattern && {
      $or: [
        { title: { $ilike: pattern } },
        { body: { $ilike: pattern } },
        { authorName: { $ilike: pattern } },
        { app: { name: { $ilike: pattern } } },
      ],
    }),
  };
  const [reviews, total] = await em.findAndCount(Review, where, {
    populate: ['app'],
    orderBy: { updatedAt: 'desc', id: 'asc' },
    limit: filter.limit,
    offset: filter.offset,
  });
  return listPageOf(reviews.map(toRow), total, filter);
}

export async function reviewForModeration(em: EntityManager, id: string): Promise<ModerationRow> {
  const review = await em.findOne(Review, { id }, { populate: ['app'], refresh: true });
  if (!review) throw notFound('Review');
  return toRow(review);
}
