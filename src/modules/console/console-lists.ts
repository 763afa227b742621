import { notFound } from '../../http/problem.ts';

/**
 * The console's lists: `q` (search, trimmed, at most 200 characters), `page` (1–400, bad values
 * read as 1) and a fixed page size. Filters the console does not know are ignored rather than
 * refused: a hand-edited URL shows everything instead of an error page.
 */
export const CONSOLE_PAGE_SIZE = 25;
const MAX_PAGE = 400;

export interface ListQuery {
  q: string | null;
  page: number;
  limit: number;
  offset: number;
}

export function listQuery(query: Record<string, string | undefined>): ListQuery {
  const q = query.q?.trim().slice(0, 200) || null;
  const page = /^[1-9][0-9]{0,3}$/.test(query.page ?? '') ? Math.min(Number(query.page), MAX_PAGE) : 1;
  return { q, page, limit: CONSOLE_PAGE_SIZE, offset: (page - 1) * CONSOLE_PAGE_SIZE };
}

/** A value from a known set, or null. */
export const oneOf = <T extends string>(value: string | undefined, allowed: readonly T[]): T | null =>
  value !== undefined && (allowed as readonly string[]).includes(value) ? (value as T) : null;

/** `%term%` for ILIKE, with the pattern characters in the term taken literally. */
export const containsPattern = (term: string) => `%${term.replace(/[\\%_]/g, '\\$&')}%`;

export const totalPages = (total: number, limit = CONSOLE_PAGE_SIZE) => Math.ceil(total / limit);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a search term can be an id (compared to a uuid column, anything else is a database error). */
export const isUuid = (value: string) => UUID.test(value);

/** An id from a console URL: anything that is not a UUID names nothing (404), never a 500. */
export function idParam(value: string | undefined, what: string): string {
  if (!value || !UUID.test(value)) throw notFound(what);
  return value.toLowerCase();
}

export interface ListPage<T> {
  data: T[];
  total: number;
  totalPages: number;
}

/** A page as the console lists show it, from its rows (mapped) and the total they were drawn from. */
export const listPageOf = <T>(data: T[], total: number, filter: ListQuery): ListPage<T> => ({
  data,
  total,
  totalPages: totalPages(total, filter.limit),
});
