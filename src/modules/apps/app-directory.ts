import { rawKey } from '../../lib/raw-keys.ts';
import { imagesForReview } from '../assets/asset-publication.ts';
import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, isUuid, listPageOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { App, type AppStatus, type Category } from './app.entity.ts';
import { AppRevision } from './app-revision.entity.ts';
import { AppTransition } from './app-transition.entity.ts';
import { AppStats } from '../stats/app-stats.entity.ts';
import { adminEmailsOf } from '../audit/audit-log.ts';
import { OAuthClient } from '../oauth-clients/oauth-client.entity.ts';
import { adminActionsFrom, FEATURABLE_STATUSES } from './app-state.ts';
import type { OwnerAppView, UpdateAppInput } from './apps.model.ts';
import { normaliseScreenshots } from './app-changes.ts';
import { diffListings, type FieldChange } from './listing-diff.ts';
import { LISTING_FIELDS, listingOf, type Listing, type ListingField } from './listing-fields.ts';
import { ONE_MOMENT, toOwnerView } from './owner-views.ts';
import type { AppSummary } from '../../../views/admin/apps.ts';
import type { AppDossier as DossierOf, Lookalike } from '../../../views/admin/listing.ts';
export type { HistoryEntry, Lookalike, PendingRevisionDetail } from '../../../views/admin/listing.ts';
/** The view's dossier, with the listing as the API's owner view (review warnings and decisions read more of it than the page draws). */
export type AppDossier = DossierOf<OwnerAppView>;
export type { AppSummary } from '../../../views/admin/apps.ts';

export const appActions = (status: AppStatus, featured: boolean) => ({
  lifecycle: adminActionsFrom(status),
  feature: !featured && FEATURABLE_STATUSES.includes(status),
  unfeature: featured,
});

const toSummary = (app: App, stats: AppStats | undefined, pendingRevision: boolean): AppSummary => ({
  id: app.id,
  name: app.name,
  slug: app.slug,
  status: app.status,
  category: app.category,
  featured: app.featured,
  version: app.version,
  installCount: stats?.installCount ?? 0,
  activeInstalls: stats?.activeInstalls ?? 0,
  developer: { id: app.developer.id, name: app.developer.name },
  updatedAt: app.updatedAt,
  hasPendingRevision: pendingRevision,
  actions: appActions(app.status, app.featured),
});

/** The summaries of these apps (their developers loaded): counters and pending revisions read for the page at once. */
async function summariesOf(em: EntityManager, apps: App[]): Promise<AppSummary[]> {
  if (apps.length === 0) return [];
  const ids = apps.map((app) => app.id);
  const [stats, pending] = await Promise.all([
    em.find(AppStats, { appId: { $in: ids } }, { disableIdentityMap: true }),
    em
      .createQueryBuilder(AppRevision, 'r')
      .select('r.appId')
      .where({ appId: { $in: ids }, status: 'PENDING' })
      .execute<{ appId: string }[]>('all'),
  ]);
  const statsOf = new Map(stats.map((row) => [row.appId, row]));
  const withPending = new Set(pending.map((row) => row.appId));
  return apps.map((app) => toSummary(app, statsOf.get(app.id), withPending.has(app.id)));
}

export async function listApps(
  em: EntityManager,
  filter: ListQuery & { status: AppStatus | null; category: Category | null },
): Promise<ListPage<AppSummary>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where: FilterQuery<App> = {
    ...(filter.status && { status: filter.status }),
    ...(filter.category && { category: filter.category }),
    ...(pattern && {
      $or: [
        { name: { $ilike: pattern } },
        { slug: { $ilike: pattern } },
        { developer: { name: { $ilike: pattern } } },
        { developer: { email: { $ilike: pattern } } },
        // A search term that is an id finds that app.
        ...(isUuid(filter.q!) ? [{ id: filter.q!.toLowerCase() }] : []),
      ],
    }),
  };
  const [apps, total] = await em.findAndCount(App, where, {
    populate: ['developer'],
    orderBy: { updatedAt: 'desc', id: 'asc' },
    limit: filter.limit,
    offset: filter.offset,
  });
  return listPageOf(await summariesOf(em, apps), total, filter);
}

export async function appSummary(em: EntityManager, id: string): Promise<AppSummary> {
  const app = await em.findOne(App, { id }, { populate: ['developer'], refresh: true });
  if (!app) throw notFound('App');
  return (await summariesOf(em, [app]))[0]!;
}

/** Approved apps whose names look like this one (trigram similarity): a possible impersonation. */
export async function lookalikeNames(em: EntityManager, appId: string, name: string): Promise<Lookalike[]> {
  const rows = await em
    .createQueryBuilder(App, 'a')
    .select(['a.id', 'a.name', 'a.slug', raw('similarity(lower(a.name), lower(?)) as score', [name])])
    .where({ status: 'APPROVED', id: { $ne: appId } })
    .andWhere(raw('lower(a.name) % lower(?)', [name]))
    .orderBy([{ [rawKey('score')]: 'desc' }, { name: 'asc' }])
    .limit(5)
    .execute<{ id: string; name: string; slug: string; score: number | string }[]>('all');
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

/** What a reviewer sees of an app, read as one moment: the versions a decision names and what stood behind them. */
export async function appDossier(em: EntityManager, id: string): Promise<AppDossier> {
  return em.transactional((tx) => readDossier(tx, id), ONE_MOMENT);
}

async function readDossier(em: EntityManager, id: string): Promise<AppDossier> {
  const app = await em.findOne(App, { id }, { populate: ['developer'] });
  if (!app) throw notFound('App');
  const [view, history, lookalikes, revision, client] = await Promise.all([
    toOwnerView(em, app),
    em.find(AppTransition, { appId: id }, { orderBy: { createdAt: 'desc' }, limit: 100, disableIdentityMap: true }),
    lookalikeNames(em, app.id, app.name),
    em.findOne(AppRevision, { appId: id, status: 'PENDING' }, { disableIdentityMap: true }),
    app.oauthClientId ? em.findOne(OAuthClient, { clientId: app.oauthClientId }, { populate: ['developer'] }) : Promise.resolve(null),
  ]);
  const live = listingOf(app);
  const lastRejection = history.find((entry) => entry.action === 'reject');
  const developer = app.developer;
  const adminEmails = await adminEmailsOf(
    em,
    history.map((entry) => entry.actor),
  );
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
      fromStatus: entry.fromStatus,
      toStatus: entry.toStatus,
      actor: adminEmails.get(entry.actor) ?? (entry.actor === `developer:${developer.id}` ? `${developer.name} (developer)` : entry.actor),
      version: entry.version,
      reason: entry.reason ?? null,
      at: entry.createdAt,
    })),
    lookalikes,
    oauthClient: app.oauthClientId
      ? {
          clientId: app.oauthClientId,
          name: client?.name ?? null,
          owner: client ? { id: client.developer.id, name: client.developer.name, email: client.developer.email } : null,
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
            rejectedAt: lastRejection.createdAt,
            reason: lastRejection.reason ?? null,
            diff: lastRejection.listing ? diffListings(lastRejection.listing as Listing, live) : null,
          }
        : null,
    actions: appActions(app.status, app.featured),
  };
}
