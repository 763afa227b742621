import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, totalPages, type ListQuery } from '../../http/console-lists.ts';

/** Reviews as moderators see them: hidden ones included, searchable by text, author and app. */
export interface ModerationRow {
  id: string;
  rating: number;
  title: string | null;
  body: string | null;
  authorName: string | null;
  hidden: boolean;
  app: { id: string; name: string; slug: string };
  updatedAt: Date;
}

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

const SELECT = `select r.id, r.rating, r.title, r.body, r.author_name, r.hidden, a.id as app_id, a.name as app_name, a.slug, r.updated_at
  from reviews r join apps a on a.id = r.app_id`;

export const VISIBILITIES = ['visible', 'hidden'] as const;

export async function listReviewsForModeration(
  em: EntityManager,
  filter: ListQuery & { visibility: (typeof VISIBILITIES)[number] | null },
): Promise<{ data: ModerationRow[]; total: number; totalPages: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.visibility) where.push(filter.visibility === 'hidden' ? 'r.hidden' : 'not r.hidden');
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    where.push('(r.title ilike ? or r.body ilike ? or r.author_name ilike ? or a.name ilike ?)');
    params.push(pattern, pattern, pattern, pattern);
  }
  const clause = where.length ? `where ${where.join(' and ')}` : '';
  const [rows, counted] = await Promise.all([
    em.execute<Row[]>(`${SELECT} ${clause} order by r.updated_at desc, r.id limit ? offset ?`, [...params, filter.limit, filter.offset]),
    em.execute<{ total: number }[]>(`select count(*)::int as total from reviews r join apps a on a.id = r.app_id ${clause}`, params),
  ]);
  const total = counted[0]?.total ?? 0;
  return { data: rows.map(toRow), total, totalPages: totalPages(total, filter.limit) };
}

export async function reviewForModeration(em: EntityManager, id: string): Promise<ModerationRow> {
  const [row] = await em.execute<Row[]>(`${SELECT} where r.id = ?`, [id]);
  if (!row) throw notFound('Review');
  return toRow(row);
}
