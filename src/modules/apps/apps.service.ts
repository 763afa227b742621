import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { ApiError, notFound } from '../../http/problem.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { pageOf, pageWindow, type Page, type PageInput } from '../../http/pagination.ts';
import { Developer } from '../developers/developer.entity.ts';
import { assertClientBelongsTo } from '../oauth-clients/oauth-clients.service.ts';
import { assertEditable } from './app-state.ts';
import { assertSubmittable } from './completeness.ts';
import { withDeclaredPermissions } from './disclosure.ts';
import type { PlatformScope } from '../../config.ts';
import { App } from './app.entity.ts';
import { TeamMember } from '../teams/team.entity.ts';
import { applyAppChanges, assertListingUrls, normaliseScreenshots } from './app-changes.ts';
import { authorizeApp, authorizeTeam, lockAppFor, type Caller } from '../teams/access.ts';
import { recordTeamAudit } from '../teams/team-audit.ts';
import type { CreateAppInput, OwnerAppView, UpdateAppInput } from './apps.model.ts';
import { enqueueAssetChecks } from '../assets/asset-checks.service.ts';
import { renderLongDescription } from './markdown.ts';
import { ONE_MOMENT, toOwnerView, toOwnerViews } from './owner-views.ts';
import { attachSlug, releaseDraftSlugs, reserveSlug } from './slug.ts';

/** What services that enqueue follow-up jobs need: the EntityManager to fork and the transactional queue. */
export interface AppServiceDeps {
  em: EntityManager;
  jobs: JobQueue;
}

/** Writes of a listing's fields also check its declared permissions against the platform's scopes. */
export interface ListingWriteDeps extends AppServiceDeps {
  platformScopes: readonly PlatformScope[];
}

/**
 * A developer's CRUD on their listings, personal or of their teams, each allowed by the one
 * check in `teams/access.ts` (submission is in `submission.ts`, revisions in `revisions.service.ts`).
 * A team key creates in its team when `teamId` is omitted.
 */

/**
 * A new DRAFT. At most `maxApps` per developer (who creates it, personal or for a team): each app
 * costs asset checks, mirrored images and review time, so one account cannot fill the shared queues.
 */
export async function createApp(
  { em, jobs, platformScopes, maxApps }: ListingWriteDeps & { maxApps: number },
  caller: Caller,
  payload: CreateAppInput,
): Promise<OwnerAppView> {
  const input = withDeclaredPermissions(payload, platformScopes);
  assertListingUrls(input.environment, input);
  const teamId = input.teamId === undefined ? caller.keyTeamId : input.teamId;
  const app = await em.transactional(async (tx) => {
    if (teamId !== null) await authorizeTeam(tx, caller, teamId, 'create');
    else if (caller.keyTeamId !== null) throw notFound('Team');
    // The developer row lock serialises this developer's creations, so the cap holds under concurrency
    // (NO KEY UPDATE: rows that merely reference the developer are not held up).
    // A lock (raw SQL, D106): FOR NO KEY UPDATE has no entity form.
    await executeNamed(tx, 'select 1 from developers where id = :developerId for no key update', { developerId: caller.developerId });
    if ((await tx.count(App, { developer: caller.developerId })) >= maxApps) {
      throw new ApiError(409, 'LIMIT_EXCEEDED', `At most ${maxApps} apps per developer; delete one first`);
    }
    if (input.oauthClientId !== undefined) await assertClientBelongsTo(tx, input.oauthClientId, caller.developerId);
    const slug = await reserveSlug(tx, input.name, null);
    const created = tx.create(App, {
      developer: tx.getReference(Developer, caller.developerId),
      teamId,
      slug,
      name: input.name,
      description: input.description,
      longDescription: input.longDescription ?? null,
      longDescriptionHtml: renderLongDescription(input.longDescription),
      category: input.category,
      environment: input.environment,
      logoUrl: input.logoUrl ?? null,
      bannerUrl: input.bannerUrl ?? null,
      websiteUrl: input.websiteUrl ?? null,
      supportUrl: input.supportUrl ?? null,
      privacyPolicyUrl: input.privacyPolicyUrl ?? null,
      termsOfServiceUrl: input.termsOfServiceUrl ?? null,
      oauthClientId: input.oauthClientId ?? null,
      screenshots: normaliseScreenshots(input.screenshots ?? []),
      reviewNotes: input.reviewNotes ?? null,
      permissions: input.permissions ?? null,
      dataHandling: input.dataHandling ?? null,
      status: 'DRAFT',
      version: 1,
    });
    await tx.flush();
    await attachSlug(tx, slug, created.id);
    await enqueueAssetChecks(jobs, tx, created.id);
    return created;
  });
  return toOwnerView(em, app);
}

/**
 * The caller's personal apps and those of every team they act for (a suspended team's are not
 * theirs to act on); `teamId` narrows to one team, a team key to its own.
 */
export async function listOwnApps(em: EntityManager, caller: Caller, query: PageInput & { teamId?: string }): Promise<Page<OwnerAppView>> {
  return em.transactional((tx) => ownAppsPage(tx, caller, query), ONE_MOMENT);
}

async function ownAppsPage(em: EntityManager, caller: Caller, query: PageInput & { teamId?: string }): Promise<Page<OwnerAppView>> {
  const { page, limit, offset } = pageWindow(query);
  const teamId = query.teamId ?? caller.keyTeamId;
  if (teamId !== null) await authorizeTeam(em, caller, teamId, 'read');
  const where =
    teamId !== null
      ? { teamId }
      : {
          $or: [{ developer: caller.developerId, teamId: null }, { teamId: { $in: await actingTeamIds(em, caller.developerId) } }],
        };
  const [apps, total] = await em.findAndCount(App, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit, offset });
  return pageOf(await toOwnerViews(em, apps), page, limit, total);
}

/** The teams a developer acts for: their memberships, less suspended teams. */
async function actingTeamIds(em: EntityManager, developerId: string): Promise<string[]> {
  const memberships = await em.find(TeamMember, { developer: developerId, team: { suspendedAt: null } }, { disableIdentityMap: true });
  return memberships.map((membership) => membership.team.id);
}

export async function getOwnApp(em: EntityManager, caller: Caller, appId: string): Promise<OwnerAppView> {
  return em.transactional(async (tx) => toOwnerView(tx, await authorizeApp(tx, caller, appId, 'read')), ONE_MOMENT);
}

/**
 * PUT: omitted fields stay, `null` clears. Allowed while DRAFT, PENDING or REJECTED; a PENDING
 * app stays PENDING with its submittedAt (its place in the review queue), and the version bump
 * makes a reviewer's decision on the older version stale.
 */
export async function updateApp(
  { em, jobs, platformScopes }: ListingWriteDeps,
  caller: Caller,
  appId: string,
  payload: UpdateAppInput,
): Promise<OwnerAppView> {
  const input = withDeclaredPermissions(payload, platformScopes);
  const app = await em.transactional(async (tx) => {
    const locked = await lockAppFor(tx, caller, appId, 'edit');
    assertEditable(locked.status, 'edit');
    assertListingUrls(locked.environment, input);
    if (input.oauthClientId) await assertClientBelongsTo(tx, input.oauthClientId, caller.developerId);
    const { assetsChanged } = await applyAppChanges(tx, locked, input);
    // A listing in review stays complete: the reviewer must never be handed one without its assets.
    if (locked.status === 'PENDING') assertSubmittable(locked);
    if (assetsChanged) await enqueueAssetChecks(jobs, tx, locked.id);
    return locked;
  });
  return toOwnerView(em, app);
}

/** Deletes a DRAFT, PENDING or REJECTED app and returns what it was; its slug, never public, is released. */
export async function deleteApp(em: EntityManager, caller: Caller, appId: string): Promise<OwnerAppView> {
  return em.transactional(async (tx) => {
    const app = await lockAppFor(tx, caller, appId, 'delete');
    assertEditable(app.status, 'delete');
    const view = await toOwnerView(tx, app);
    if (app.teamId) {
      recordTeamAudit(tx, {
        teamId: app.teamId,
        actorDeveloperId: caller.developerId,
        action: 'app.deleted',
        target: app.id,
        details: { name: app.name, slug: app.slug },
      });
    }
    await releaseDraftSlugs(tx, app.id, null);
    tx.remove(app);
    return view;
  });
}
