import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, pageOfRows, whereOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { waitingFor } from '../listing-review/review-targets.ts';
import type { DeveloperStatus } from './developer.entity.ts';
import { developerActionsFrom } from './developers.service.ts';
import type { DeveloperSummary, DeveloperDossier } from '../../../views/admin/developers.ts';
export type { DeveloperSummary, DeveloperDossier } from '../../../views/admin/developers.ts';

interface Row {
  id: string;
  name: string;
  email: string;
  company_name: string | null;
  status: DeveloperStatus;
  created_at: string;
  app_count: number;
}

const toSummary = (row: Row): DeveloperSummary => ({
  id: row.id,
  name: row.name,
  email: row.email,
  companyName: row.company_name,
  status: row.status,
  createdAt: new Date(row.created_at),
  appCount: row.app_count,
  waiting: row.status === 'PENDING_VERIFICATION' ? waitingFor('verification', row.created_at) : null,
  actions: developerActionsFrom(row.status),
});

const COLUMNS = `d.id, d.name, d.email, d.company_name, d.status, d.created_at,
  (select count(*)::int from apps a where a.developer_id = d.id) as app_count`;

export function listDevelopers(em: EntityManager, filter: ListQuery & { status: DeveloperStatus | null }): Promise<ListPage<DeveloperSummary>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where = whereOf([
    filter.status && ['d.status = ?', filter.status],
    pattern && ['d.name ilike ? or d.email ilike ? or d.company_name ilike ? or d.id::text = ?', pattern, pattern, pattern, filter.q!.toLowerCase()],
  ]);
  // Awaiting verification first, oldest first; then everyone else, newest first.
  const orderBy = `d.status = 'PENDING_VERIFICATION' desc, case when d.status = 'PENDING_VERIFICATION' then d.created_at end asc, d.created_at desc, d.id`;
  return pageOfRows(em, { select: COLUMNS, from: 'developers d', where, orderBy }, filter, toSummary);
}

export async function developerSummary(em: EntityManager, id: string): Promise<DeveloperSummary> {
  const [row] = await em.execute<Row[]>(`select ${COLUMNS} from developers d where d.id = ?`, [id]);
  if (!row) throw notFound('Developer');
  return toSummary(row);
}

export async function developerDossier(em: EntityManager, id: string): Promise<DeveloperDossier> {
  const summary = await developerSummary(em, id);
  const [[profile], keys, apps, clients] = await Promise.all([
    em.execute<{ platform_user_id: string; website_url: string | null; bio: string | null; updated_at: string }[]>(
      'select platform_user_id, website_url, bio, updated_at from developers where id = ?',
      [id],
    ),
    em.execute<{ count: number }[]>(
      'select count(*)::int as count from api_keys where developer_id = ? and revoked_at is null and expires_at > now()',
      [id],
    ),
    em.execute<{ id: string; name: string; slug: string; status: string; version: number; updated_at: string }[]>(
      'select id, name, slug, status, version, updated_at from apps where developer_id = ? order by created_at desc limit 200',
      [id],
    ),
    em.execute<{ client_id: string; name: string; created_at: string }[]>(
      'select client_id, name, created_at from oauth_clients where developer_id = ? order by created_at',
      [id],
    ),
  ]);
  return {
    ...summary,
    platformUserId: profile!.platform_user_id,
    websiteUrl: profile!.website_url,
    bio: profile!.bio,
    updatedAt: new Date(profile!.updated_at),
    activeKeyCount: keys[0]?.count ?? 0,
    apps: apps.map((a) => ({ id: a.id, name: a.name, slug: a.slug, status: a.status, version: a.version, updatedAt: new Date(a.updated_at) })),
    oauthClients: clients.map((c) => ({ clientId: c.client_id, name: c.name, createdAt: new Date(c.created_at) })),
  };
}
