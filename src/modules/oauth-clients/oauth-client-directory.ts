import type { EntityManager } from '@mikro-orm/postgresql';
import { containsPattern, totalPages, type ListQuery } from '../../http/console-lists.ts';

/** Registered OAuth clients as support looks them up: by client id, name or the developer's name or e-mail. */
export interface OAuthClientListing {
  clientId: string;
  name: string;
  developer: { id: string; name: string; email: string };
  appCount: number;
  createdAt: Date;
}

export async function listOAuthClients(em: EntityManager, filter: ListQuery): Promise<{ data: OAuthClientListing[]; total: number; totalPages: number }> {
  const params: unknown[] = [];
  let clause = '';
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    clause = 'where c.client_id ilike ? or c.name ilike ? or d.name ilike ? or d.email ilike ?';
    params.push(pattern, pattern, pattern, pattern);
  }
  const [rows, counted] = await Promise.all([
    em.execute<{ client_id: string; name: string; developer_id: string; developer_name: string; email: string; app_count: number; created_at: string }[]>(
      `select c.client_id, c.name, d.id as developer_id, d.name as developer_name, d.email, c.created_at,
              (select count(*)::int from apps a where a.oauth_client_id = c.client_id) as app_count
       from oauth_clients c join developers d on d.id = c.developer_id ${clause}
       order by c.created_at desc, c.client_id limit ? offset ?`,
      [...params, filter.limit, filter.offset],
    ),
    em.execute<{ total: number }[]>(`select count(*)::int as total from oauth_clients c join developers d on d.id = c.developer_id ${clause}`, params),
  ]);
  const total = counted[0]?.total ?? 0;
  return {
    data: rows.map((row) => ({
      clientId: row.client_id,
      name: row.name,
      developer: { id: row.developer_id, name: row.developer_name, email: row.email },
      appCount: row.app_count,
      createdAt: new Date(row.created_at),
    })),
    total,
    totalPages: totalPages(total, filter.limit),
  };
}
