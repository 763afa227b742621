import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { containsPattern, listPageOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { App } from '../apps/app.entity.ts';
import { OAuthClient } from './oauth-client.entity.ts';
import type { OAuthClientListing } from '../../../views/admin/oauth-clients.ts';
export type { OAuthClientListing } from '../../../views/admin/oauth-clients.ts';

/** How many apps name each of these clients, by client id (one grouped count for a page). */
async function appCounts(em: EntityManager, clientIds: string[]): Promise<Map<string, number>> {
  if (clientIds.length === 0) return new Map();
  const rows = await em
    .createQueryBuilder(App, 'a')
    .select([raw('a.oauth_client_id as client_id'), raw('count(*)::int as n')])
    .where({ oauthClientId: { $in: clientIds } })
    .groupBy('a.oauthClientId')
    .execute<{ client_id: string; n: number }[]>('all', false);
  return new Map(rows.map((row) => [row.client_id, row.n]));
}

export async function listOAuthClients(em: EntityManager, filter: ListQuery): Promise<ListPage<OAuthClientListing>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where: FilterQuery<OAuthClient> = pattern
    ? {
        $or: [
          { clientId: { $ilike: pattern } },
          { name: { $ilike: pattern } },
          { developer: { name: { $ilike: pattern } } },
          { developer: { email: { $ilike: pattern } } },
        ],
      }
    : {};
  const [clients, total] = await em.findAndCount(OAuthClient, where, {
    populate: ['developer'],
    orderBy: { createdAt: 'desc', clientId: 'asc' },
    limit: filter.limit,
    offset: filter.offset,
    disableIdentityMap: true,
  });
  const counts = await appCounts(
    em,
    clients.map((client) => client.clientId),
  );
  return listPageOf(
    clients.map((client) => ({
      clientId: client.clientId,
      name: client.name,
      developer: { id: client.developer.id, name: client.developer.name, email: client.developer.email },
      appCount: counts.get(client.clientId) ?? 0,
      createdAt: client.createdAt,
    })),
    total,
    filter,
  );
}
