import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { pageOf, pageWindow, type Page, type PageInput } from '../../http/pagination.ts';
import { Developer } from '../developers/developer.entity.ts';
import { assertClientBelongsTo } from '../oauth-clients/oauth-clients.service.ts';
import { assertEditable } from './app-state.ts';
import { assertSubmittable } from './completeness.ts';
import { withDeclaredPermissions } from './disclosure.ts';
import type { PlatformScope } from '../../config.ts';
import { App } from './app.entity.ts';
import { applyAppChanges, assertListingUrls, normaliseScreenshots } from './app-changes.ts';
import { lockOwnApp } from './app-locks.ts';
import type { CreateAppInput, OwnerAppView, UpdateAppInput } from './apps.model.ts';
import { enqueueAssetChecks } from './asset-checks.service.ts';
import { renderLongDescription } from './markdown.ts';
import { toOwnerView, toOwnerViews } from './owner-views.ts';
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

/** A developer's CRUD on their own listings (submission is in `submission.ts`, revisions in `revisions.service.ts`). */
export async function createApp(
  { em, jobs, platformScopes }: ListingWriteDeps,
  developerId: string,
  payload: CreateAppInput,
): Promise<OwnerAppView> {
  const input = withDeclaredPermissions(payload, platformScopes);
  assertListingUrls(input.environment, input);
  const app = await em.transactional(async (tx) => {
    if (input.oauthClientId !== undefined) await assertClientBelongsTo(tx, input.oauthClientId, developerId);
    const slug = await reserveSlug(tx, input.name, null);
    const created = tx.create(App, {
      developer: tx.getReference(Developer, developerId),
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

export async function listOwnApps(em: EntityManager, developerId: string, query: PageInput): Promise<Page<OwnerAppView>> {
  const { page, limit, offset } = pageWindow(query);
  const [apps, total] = await em.findAndCount(
    App,
    { developer: developerId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit, offset },
  );
  return pageOf(await toOwnerViews(em, apps), page, limit, total);
}

export async function getOwnApp(em: EntityManager, developerId: string, appId: string): Promise<OwnerAppView> {
  const app = await em.findOne(App, { id: appId, developer: developerId });
  if (!app) throw notFound('App');
  return toOwnerView(em, app);
}

/**
 * PUT: omitted fields stay, `null` clears. Allowed while DRAFT, PENDING or REJECTED; a PENDING
 * app stays PENDING with its submittedAt (its place in the review queue), and the version bump
 * makes a reviewer's decision on the older version stale.
 */
export async function updateApp(
  { em, jobs, platformScopes }: ListingWriteDeps,
  developerId: string,
  appId: string,
  payload: UpdateAppInput,
): Promise<OwnerAppView> {
  const input = withDeclaredPermissions(payload, platformScopes);
  const app = await em.transactional(async (tx) => {
    const locked = await lockOwnApp(tx, developerId, appId);
    assertEditable(locked.status, 'edit');
    assertListingUrls(locked.environment, input);
    if (input.oauthClientId) await assertClientBelongsTo(tx, input.oauthClientId, developerId);
    const { assetsChanged } = await applyAppChanges(tx, locked, input);
    // A listing in review stays complete: the reviewer must never be handed one without its assets.
    if (locked.status === 'PENDING') assertSubmittable(locked);
    if (assetsChanged) await enqueueAssetChecks(jobs, tx, locked.id);
    return locked;
  });
  return toOwnerView(em, app);
}

/** Deletes a DRAFT, PENDING or REJECTED app and returns what it was; its slug, never public, is released. */
export async function deleteApp(em: EntityManager, developerId: string, appId: string): Promise<OwnerAppView> {
  return em.transactional(async (tx) => {
    const app = await lockOwnApp(tx, developerId, appId);
    assertEditable(app.status, 'delete');
    const view = await toOwnerView(tx, app);
    await releaseDraftSlugs(tx, app.id, null);
    tx.remove(app);
    return view;
  });
}

