import { validationFailed } from './problem.ts';

/**
 * Paged lists: `page` ≥ 1 (default 1), `limit` 1–100 (default 20, bounded by `PageQuery` in
 * schemas.ts), and `page × limit` ≤ 10,000 so no request can ask for an arbitrarily deep offset.
 */
export const MAX_PAGE_WINDOW = 10_000;

export interface PageInput {
  page?: number;
  limit?: number;
}

export interface Page<T> {
  data: T[];
  pagination: { page: number; limit: number; total: number; totalPages: number };
}

export function pageWindow(query: PageInput): { page: number; limit: number; offset: number } {
  const page = query.page ?? 1;
  const limit = query.limit ?? 20;
  if (page * limit > MAX_PAGE_WINDOW) {
    throw validationFailed('The query is invalid', [{ path: 'page', message: `page × limit must not exceed ${MAX_PAGE_WINDOW}` }]);
  }
  return { page, limit, offset: (page - 1) * limit };
}

export function pageOf<T>(data: T[], page: number, limit: number, total: number): Page<T> {
  return { data, pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } };
}
