import { namedSql } from '../../lib/named-sql.ts';
import type { SqlReader } from '../../lib/sql-reader.ts';
import { COLUMNS, JOINS, VISIBLE, toSummary, type PublicAppRow } from './catalogue-rows.ts';
import { filterCondition, orderBy, SORT_KEYS, type CatalogueFilter } from './catalogue-order.ts';
import type { CatalogueSort, PublicAppSummary } from './catalogue.model.ts';
// Raw SQL here is the hot public read (D106): the catalogue list, through the SqlReader.

/** The browsing side of the public list (no search): one page of summaries, and a filter's total. */
export async function listPage(
  reader: SqlReader,
  filter: CatalogueFilter,
  sort: Exclude<CatalogueSort, 'relevance'>,
  window: { limit: number; offset: number },
): Promise<PublicAppSummary[]> {
  const condition = filterCondition(filter);
  const rows = await reader.query<PublicAppRow>(
    namedSql(
      `select ${COLUMNS.summary}
       from (select ${SORT_KEYS} from apps a ${JOINS} where ${VISIBLE}${condition.sql}
             order by ${orderBy(sort)} limit :limit offset :offset) p
       join apps a on a.id = p.id ${JOINS}
       order by ${orderBy(sort, 'p.')}`,
      { ...condition.params, limit: window.limit, offset: window.offset },
    ),
  );
  return rows.map(toSummary);
}

/**
 * How many public apps pass the filter: an exact count, which callers cache per filter and version,
 * from the narrow search table (its visibility and filters are the list's), not a join of wide rows.
 */
export async function countListed(reader: SqlReader, filter: CatalogueFilter): Promise<number> {
  const condition = filterCondition(filter);
  const [row] = await reader.query<{ total: number }>(
    namedSql(`select count(*)::int as total from app_search a where a.visible${condition.sql}`, condition.params),
  );
  return row?.total ?? 0;
}
