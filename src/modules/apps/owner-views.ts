import { IsolationLevel, type EntityManager } from '@mikro-orm/postgresql';
import type { Static } from 'elysia';
import type { App } from './app.entity.ts';
import { NO_STATS, toOwnerAppView, type AppStats } from './app-view.ts';
import type { AssetCheckView, OwnerAppView, UpdateAppInput } from './apps.model.ts';
import { mirrorUrl } from '../assets/asset-files.ts';
import { listedAssets, proposedAssets, sameAsset, type ListedAsset } from '../assets/listed-assets.ts';
import { addedPermissions } from './disclosure.ts';
import type { Permission } from './app.entity.ts';
import { medianDecisionMs, queueEntriesOf, standingOf, type QueueEntry } from '../listing-review/review-queue.ts';
import { AppRevision } from './app-revision.entity.ts';
import { AppStats as AppStatsRow } from '../stats/app-stats.entity.ts';
import { Team } from '../teams/team.entity.ts';
import { AssetCheck } from '../assets/asset-check.entity.ts';

// What the owning developer (and admins) see of apps: the entity plus stats, asset checks and any pending revision.

/** The checks of exactly the images `listed` (the live listing, or what a revision proposes). */
const checksOf = (checks: AssetCheck[], listed: ListedAsset[]): Static<typeof AssetCheckView>[] =>
  checks
    .filter((check) => listed.some((asset) => sameAsset(asset, check)))
    .map((check) => ({
      field: check.field,
      url: check.url,
      ok: check.ok,
      format: check.format,
      width: check.width,
      height: check.height,
      problems: check.problems,
      mirrorUrl: check.copy ? mirrorUrl(check.copy.sha256, check.copy.extension) : null,
      checkedAt: check.checkedAt.toISOString(),
    }));

/**
 * Options for reading an app's views as one moment (a read-only repeatable-read transaction): the
 * version a decision must name and the asset checks behind it, which a check job moves together.
 */
export const ONE_MOMENT = { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true } as const;

/**
 * Owner views of several apps with batched reads (stats, asset checks, pending revisions, their
 * places in the review queue) rather than several per app.
 */
export async function toOwnerViews(em: EntityManager, apps: App[]): Promise<OwnerAppView[]> {
  if (apps.length === 0) return [];
  const ids = apps.map((app) => app.id);
  const teamIds = [...new Set(apps.flatMap((app) => (app.teamId ? [app.teamId] : [])))];
  // Read past the identity map: a caller may just have written these rows in its transaction.
  const fresh = { disableIdentityMap: true } as const;
  const [stats, checks, revisions, teams] = await Promise.all([
    em.find(AppStatsRow, { appId: { $in: ids } }, fresh),
    em.find(AssetCheck, { appId: { $in: ids } }, { ...fresh, populate: ['copy'], orderBy: { field: 'asc' } }),
    em.find(AppRevision, { appId: { $in: ids }, status: 'PENDING' }, fresh),
    teamIds.length > 0 ? em.find(Team, { id: { $in: teamIds } }, fresh) : [],
  ]);
  const queued = apps.filter((app) => app.status === 'PENDING' || revisions.some((row) => row.appId === app.id));
  const entries = await queueEntriesOf(
    em,
    queued.map((app) => app.id),
  );
  const median = entries.length > 0 ? await medianDecisionMs(em) : 0;
  const standing = (kind: QueueEntry['kind'], appId: string) => {
    const entry = entries.find((e) => e.kind === kind && e.appId === appId);
    return entry ? standingOf(entry, median) : null;
  };
  return apps.map((app) => {
    const stat = stats.find((row) => row.appId === app.id);
    const appStats: AppStats = stat
      ? {
          installCount: stat.installCount,
          activeInstalls: stat.activeInstalls,
          reviewCount: stat.reviewCount,
          averageRating: Number(stat.averageRating),
        }
      : NO_STATS;
    const appChecks = checks.filter((check) => check.appId === app.id);
    const revision = revisions.find((row) => row.appId === app.id);
    const pendingRevision = revision
      ? {
          id: revision.id,
          changes: revision.changes,
          version: revision.version,
          status: 'PENDING' as const,
          addedPermissions: addedPermissions(app.permissions, revision.changes.permissions as Permission[] | null | undefined),
          assetChecks: checksOf(appChecks, proposedAssets(app, revision.changes as UpdateAppInput)),
          // A revision just proposed in this transaction is in the queue too, at its end.
          review: standing('revision', app.id) ?? {
            queuePosition: entries.length + 1,
            expectedDecisionBy: new Date(Date.now() + median).toISOString(),
          },
          createdAt: revision.createdAt.toISOString(),
          updatedAt: revision.updatedAt.toISOString(),
        }
      : null;
    return toOwnerAppView(app, appStats, {
      assetChecks: checksOf(appChecks, listedAssets(app)),
      pendingRevision,
      review: app.status === 'PENDING' ? standing('app', app.id) : null,
      team: teams.map((team) => ({ id: team.id, name: team.name })).find((team) => team.id === app.teamId) ?? null,
    });
  });
}

export async function toOwnerView(em: EntityManager, app: App): Promise<OwnerAppView> {
  const [view] = await toOwnerViews(em, [app]);
  return view!;
}
