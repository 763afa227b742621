import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, pageOfRows, whereOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import type { ModerationRow } from '../../../views/admin/reviews.ts';
export type { ModerationRow } from '../../../views/admin/reviews.ts';

interface Row {
  id: string;
  rating: number;
  title: string | null;
  body: string | null;
  author_name: string | null;
  hidden: boolean;
  app_id: string;
  app_name: string;
  slug: string;
  updated_at: string;
}

const toRow = (row: Row): ModerationRow => ({
  id: row.id,
  rating: row.rating,
  title: row.title,
  body: row.body,
  authorName: row.author_name,
  hidden: row.hidden,
  app: { id: row.app_id, name: row.app_name, slug: row.slug },
  updatedAt: new Date(row.updated_at),
});

const COLUMNS = 'r.id, r.rating, r.title, r.body, r.author_name, r.hidden, a.id as app_id, a.name as app_name, a.slug, r.updated_at';
const FROM = 'reviews r join apps a on a.id = r.app_id';

export const VISIBILITIES = ['visible', 'hidden'] as const;

export function listReviewsForModeration(
  em: EntityManager,
  filter: ListQuery & { visibility: (typeof VISIBILITIES)[number] | null },
): Promise<ListPage<ModerationRow>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where = whereOf([
    filter.visibility && [filter.visibility === 'hidden' ? 'r.hidden' : 'not r.hidden'],
    pattern && ['r.title ilike ? or r.body ilike ? or r.author_name ilike ? or a.name ilike ?', pattern, pattern, pattern, pattern],
  ]);
  return pageOfRows(em, { select: COLUMNS, from: FROM, where, orderBy: 'r.updated_at desc, r.id' }, filter, toRow);
}

export async function reviewForModeration(em: EntityManager, id: string): Promise<ModerationRow> {
  const [row] = await em.execute<Row[]>(`select ${COLUMNS} from ${FROM} where r.id = ?`, [id]);
  if (!row) throw notFound('Review');
  return toRow(row);
}
