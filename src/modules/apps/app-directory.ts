import { imagesForReview } from '../assets/asset-publication.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, pageOfRows, whereOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { App, type AppStatus, type Category } from './app.entity.ts';
import { AppRevision } from './app-revision.entity.ts';
import { adminActionsFrom, FEATURABLE_STATUSES } from './app-state.ts';
import type { OwnerAppView, UpdateAppInput } from './apps.model.ts';
import { normaliseScreenshots } from './app-changes.ts';
import { diffListings, type FieldChange } from './listing-diff.ts';
import { LISTING_FIELDS, listingOf, type Listing, type ListingField } from './listing-fields.ts';
import { toOwnerView } from './owner-views.ts';
import type { AppSummary } from '../../../views/admin/apps.ts';
import type { AppDossier as DossierOf, Lookalike } from '../../../views/admin/listing.ts';
export type { HistoryEntry, Lookalike, PendingRevisionDetail } from '../../../views/admin/listing.ts';
/** The view's dossier, with the listing as the API's owner view (review warnings and decisions read more of it than the page draws). */
export type AppDossier = DossierOf<OwnerAppView>;
export type { AppSummary } from '../../../views/admin/apps.ts';

interface SummaryRow {
  id: string;
  name: string;
  slug: string;
  status: AppStatus;
  category: Category;
  featured: boolean;
  version: number;
  install_count: number | null;
  active_installs: number | null;
  developer_id: string;
  developer_name: string;
  updated_at: string;
  pending_revision: boolean;
}

export const appActions = (status: AppStatus, featured: boolean) => ({
  lifecycle: adminActionsFrom(status),
  feature: !featured && FEATURABLE_STATUSES.includes(status),
  unfeature: featured,
});

const toSummary = (row: SummaryRow): AppSummary => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  status: row.status,
  category: row.category,
  featured: row.featured,
  version: row.version,
  installCount: row.install_count ?? 0,
  activeInstalls: row.active_installs ?? 0,
  developer: { id: row.developer_id, name: row.developer_name },
  updatedAt: new Date(row.updated_at),
  hasPendingRevision: row.pending_revision,
  actions: appActions(row.status, row.featured),
});

const COLUMNS = `a.id, a.name, a.slug, a.status, a.category, a.featured, a.version, s.install_count, s.active_installs,
  d.id as developer_id, d.name as developer_name, a.updated_at,
  exists (select 1 from app_revisions r where r.app_id = a.id and r.status = 'PENDING') as pending_revision`;
const FROM = 'apps a join developers d on d.id = a.developer_id left join app_stats s on s.app_id = a.id';

export function listApps(
  em: EntityManager,
  filter: ListQuery & { status: AppStatus | null; category: Category | null },
): Promise<ListPage<AppSummary>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where = whereOf([
    filter.status && ['a.status = ?', filter.status],
    filter.category && ['a.category = ?', filter.category],
    pattern && [
      'a.name ilike ? or a.slug ilike ? or d.name ilike ? or d.email ilike ? or a.id::text = ?',
      pattern,
      pattern,
      pattern,
      pattern,
      filter.q!.toLowerCase(),
    ],
  ]);
  return pageOfRows(em, { select: COLUMNS, from: FROM, where, orderBy: 'a.updated_at desc, a.id' }, filter, toSummary);
}

export async function appSummary(em: EntityManager, id: string): Promise<AppSummary> {
  const [row] = await em.execute<SummaryRow[]>(`select ${COLUMNS} from ${FROM} where a.id = ?`, [id]);
  if (!row) throw notFound('App');
  return toSummary(row);
}

/** Approved apps whose names look like this one (trigram similarity): a possible impersonation. */
export async function lookalikeNames(em: EntityManager, appId: string, name: string): Promise<Lookalike[]> {
  const rows = await em.execute<{ id: string; name: string; slug: string; score: number }[]>(
    `select id, name, slug, similarity(lower(name), lower(?)) as score from apps
     where status = 'APPROVED' and id <> ? and lower(name) % lower(?)
     order by score desc, name limit 5`,
    [name, appId, name],
  );
  return rows.map((row) => ({ id: row.id, name: row.name, slug: row.slug, similarity: Math.round(Number(row.score) * 100) / 100 }));
}

/** The live listing against a revision's change set (only the fields it sets). */
export function revisionDiff(live: Listing, changes: UpdateAppInput): FieldChange[] {
  const proposed: Partial<Listing> = { ...live, ...changes };
  if (changes.screenshots) proposed.screenshots = normaliseScreenshots(changes.screenshots);
  return diffListings(
    live,
    proposed,
    Object.keys(changes).filter((key): key is ListingField => (LISTING_FIELDS as readonly string[]).includes(key)),
  );
}

export async function appDossier(em: EntityManager, id: string): Promise<AppDossier> {
  const app = await em.findOne(App, { id }, { populate: ['developer'] });
  if (!app) throw notFound('App');
  const [view, history, lookalikes, revision, clientRows] = await Promise.all([
    toOwnerView(em, app),
    em.execute<
      {
        action: string;
        from_status: string;
        to_status: string;
        actor: string;
        email: string | null;
        version: number;
        reason: string | null;
        listing: Listing | null;
        created_at: string;
      }[]
    >(
      `select t.action, t.from_status, t.to_status, t.actor, a.email, t.version, t.reason, t.listing, t.created_at
       from app_transitions t left join admins a on t.actor = 'admin:' || a.id::text
       where t.app_id = ? order by t.created_at desc limit 100`,
      [id],
    ),
    lookalikeNames(em, app.id, app.name),
    em.fork().findOne(AppRevision, { appId: id, status: 'PENDING' }),
    app.oauthClientId
      ? em.execute<{ client_id: string; name: string; developer_id: string; developer_name: string; email: string }[]>(
          `select c.client_id, c.name, d.id as developer_id, d.name as developer_name, d.email
           from oauth_clients c join developers d on d.id = c.developer_id where c.client_id = ?`,
          [app.oauthClientId],
        )
      : Promise.resolve([]),
  ]);
  const live = listingOf(app);
  const lastRejection = history.find((entry) => entry.action === 'reject');
  const developer = app.developer;
  const client = clientRows[0];
  return {
    app: view,
    images: imagesForReview(view),
    developer: {
      id: developer.id,
      name: developer.name,
      email: developer.email,
      companyName: developer.companyName ?? null,
      websiteUrl: developer.websiteUrl ?? null,
      status: developer.status,
    },
    history: history.map((entry) => ({
      action: entry.action,
      fromStatus: entry.from_status,
      toStatus: entry.to_status,
      actor: entry.email ?? (entry.actor === `developer:${developer.id}` ? `${developer.name} (developer)` : entry.actor),
      version: entry.version,
      reason: entry.reason,
      at: new Date(entry.created_at),
    })),
    lookalikes,
    oauthClient: app.oauthClientId
      ? {
          clientId: app.oauthClientId,
          name: client?.name ?? null,
          owner: client ? { id: client.developer_id, name: client.developer_name, email: client.email } : null,
        }
      : null,
    revision: revision
      ? {
          id: revision.id,
          version: revision.version,
          createdAt: revision.createdAt,
          updatedAt: revision.updatedAt,
          diff: revisionDiff(live, revision.changes as UpdateAppInput),
        }
      : null,
    resubmission:
      app.status === 'PENDING' && lastRejection
        ? {
            rejectedAt: new Date(lastRejection.created_at),
            reason: lastRejection.reason,
            diff: lastRejection.listing ? diffListings(lastRejection.listing, live) : null,
          }
        : null,
    actions: appActions(app.status, app.featured),
  };
}
