import { Elysia } from 'elysia';
import { idParam, listQuery, oneOf } from '../console/console-lists.ts';
import { reviewRow, reviewsPage } from '../../../views/admin/reviews.ts';
import type { ConsoleKit } from '../console/console-plugin.ts';
import { listReviewsForModeration, reviewForModeration, VISIBILITIES } from './review-moderation.ts';
import { setReviewHidden } from './reviews.service.ts';

/** Console: reviews with search, and hiding one (it leaves the public list and the rating; audited). */

const moderate = (kit: ConsoleKit, hidden: boolean) =>
  kit.action({
    run: (c) => setReviewHidden(c.em, c.deps.jobs, idParam(c.params.id, 'Review'), hidden, c.actor),
    success: () => (hidden ? 'Hidden: it left the public list and the rating.' : 'Shown again.'),
    fragment: async (c, outcome) => reviewRow(await reviewForModeration(c.em.fork(), idParam(c.params.id, 'Review')), c.forms, outcome.message),
    redirect: () => '/admin/reviews',
  });

export function reviewsAdmin(kit: ConsoleKit) {
  return new Elysia()
    .use(kit.plugin)
    .get(
      '/admin/reviews',
      kit.page(async (c) => {
        const query = listQuery(c.query);
        const visibility = oneOf(c.query.visibility, VISIBILITIES);
        const list = await listReviewsForModeration(c.em, { ...query, visibility });
        return {
          title: 'Reviews',
          body: reviewsPage({
            rows: list.data,
            query: { q: query.q ?? undefined, visibility: visibility ?? undefined },
            paging: { page: query.page, totalPages: list.totalPages, total: list.total },
            form: c.can['reviews.moderate'] ? c.forms : null,
          }),
        };
      }),
      { capability: 'view' },
    )
    .post('/admin/reviews/:id/hide', moderate(kit, true), { capability: 'reviews.moderate' })
    .post('/admin/reviews/:id/unhide', moderate(kit, false), { capability: 'reviews.moderate' });
}
