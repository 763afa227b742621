import type { EntityManager } from '@mikro-orm/postgresql';
import { containsPattern, pageOfRows, whereOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import type { OAuthClientListing } from '../../../views/admin/oauth-clients.ts';
export type { OAuthClientListing } from '../../../views/admin/oauth-clients.ts';

interface Row {
  client_id: string;
  name: string;
  developer_id: string;
  developer_name: string;
  email: string;
  app_count: number;
  created_at: string;
}

export function listOAuthClients(em: EntityManager, filter: ListQuery): Promise<ListPage<OAuthClientListing>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where = whereOf([
    pattern && ['c.client_id ilike ? or c.name ilike ? or d.name ilike ? or d.email ilike ?', pattern, pattern, pattern, pattern],
  ]);
  return pageOfRows(
    em,
    {
      select: `c.client_id, c.name, d.id as developer_id, d.name as developer_name, d.email, c.created_at,
               (select count(*)::int from apps a where a.oauth_client_id = c.client_id) as app_count`,
      from: 'oauth_clients c join developers d on d.id = c.developer_id',
      where,
      orderBy: 'c.created_at desc, c.client_id',
    },
    filter,
    (row: Row) => ({
      clientId: row.client_id,
      name: row.name,
      developer: { id: row.developer_id, name: row.developer_name, email: row.email },
      appCount: row.app_count,
      createdAt: new Date(row.created_at),
    }),
  );
}
