import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { rawKey } from '../../lib/raw-keys.ts';
import { notFound } from '../../http/problem.ts';
import { containsPattern, isUuid, listPageOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { waitingFor } from '../listing-review/review-targets.ts';
import { Developer, type DeveloperStatus } from './developer.entity.ts';
import { App } from '../apps/app.entity.ts';
import { ApiKey } from '../api-keys/api-key.entity.ts';
import { OAuthClient } from '../oauth-clients/oauth-client.entity.ts';
import { developerActionsFrom } from './developers.service.ts';
import type { DeveloperSummary, DeveloperDossier } from '../../../views/admin/developers.ts';
export type { DeveloperSummary, DeveloperDossier } from '../../../views/admin/developers.ts';

const toSummary = (developer: Developer, appCount: number): DeveloperSummary => ({
  id: developer.id,
  name: developer.name,
  email: developer.email,
  companyName: developer.companyName ?? null,
  status: developer.status,
  createdAt: developer.createdAt,
  appCount,
  waiting: developer.status === 'PENDING_VERIFICATION' ? waitingFor('verification', developer.createdAt) : null,
  actions: developerActionsFrom(developer.status),
});

/** How many apps each of these developers created, by id (one grouped count for a page). */
async function appCounts(em: EntityManager, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await em
    .createQueryBuilder(App, 'a')
    .select([raw('a.developer_id as developer_id'), raw('count(*)::int as apps')])
    .where({ developer: { $in: ids } })
    .groupBy('a.developer')
    .execute<{ developer_id: string; apps: number }[]>('all', false);
  return new Map(rows.map((row) => [row.developer_id, row.apps]));
}

export async function listDevelopers(em: EntityManager, filter: ListQuery & { status: DeveloperStatus | null }): Promise<ListPage<DeveloperSummary>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where: FilterQuery<Developer> = {
    ...(filter.status && { status: filter.status }),
    ...(pattern && {
      $or: [
        { name: { $ilike: pattern } },
        { email: { $ilike: pattern } },
        { companyName: { $ilike: pattern } },
        // A search term that is an id finds that developer.
        ...(isUuid(filter.q!) ? [{ id: filter.q!.toLowerCase() }] : []),
      ],
    }),
  };
  // Awaiting verification first, oldest first; then everyone else, newest first.
  const [developers, total] = await em.findAndCount(Developer, where, {
    orderBy: [
      { [rawKey((d) => `${d}.status = 'PENDING_VERIFICATION'`)]: 'desc' },
      { [rawKey((d) => `case when ${d}.status = 'PENDING_VERIFICATION' then ${d}.created_at end`)]: 'asc' },
      { createdAt: 'desc' },
      { id: 'asc' },
    ],
    limit: filter.limit,
    offset: filter.offset,
  });
  const counts = await appCounts(
    em,
    developers.map((d) => d.id),
  );
  return listPageOf(
    developers.map((d) => toSummary(d, counts.get(d.id) ?? 0)),
    total,
    filter,
  );
}

export async function developerSummary(em: EntityManager, id: string): Promise<DeveloperSummary> {
  const developer = await em.findOne(Developer, { id }, { refresh: true });
  if (!developer) throw notFound('Developer');
  return toSummary(developer, (await appCounts(em, [id])).get(id) ?? 0);
}

export async function developerDossier(em: EntityManager, id: string): Promise<DeveloperDossier> {
  const developer = await em.findOne(Developer, { id }, { refresh: true });
  if (!developer) throw notFound('Developer');
  const [counts, activeKeyCount, apps, clients] = await Promise.all([
    appCounts(em, [id]),
    em.count(ApiKey, { developer: id, revokedAt: null, expiresAt: { $gt: new Date() } }),
    em.find(App, { developer: id }, { orderBy: { createdAt: 'desc' }, limit: 200 }),
    em.find(OAuthClient, { developer: id }, { orderBy: { createdAt: 'asc' } }),
  ]);
  return {
    ...toSummary(developer, counts.get(id) ?? 0),
    platformUserId: developer.platformUserId,
    websiteUrl: developer.websiteUrl ?? null,
    bio: developer.bio ?? null,
    updatedAt: developer.updatedAt,
    activeKeyCount,
    apps: apps.map((a) => ({ id: a.id, name: a.name, slug: a.slug, status: a.status, version: a.version, updatedAt: a.updatedAt })),
    oauthClients: clients.map((c) => ({ clientId: c.clientId, name: c.name, createdAt: c.createdAt })),
  };
}
