import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { Static } from 'elysia';
import { Value } from '@sinclair/typebox/value';
import { enqueueAssetChecks } from './asset-checks.service.ts';
import { ApiError, notFound, type FieldError } from '../../http/problem.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import type { UrlPolicy } from './url-policy.ts';
import { Uuid } from '../../http/schemas.ts';
import { pageOf, pageWindow, type Page, type PageInput } from '../../http/pagination.ts';
import { Developer } from '../developers/developer.entity.ts';
import { assertClientBelongsTo } from '../oauth-clients/oauth-clients.service.ts';
import { APP_TRANSITIONS, assertEditable, nextStatus, type AppAction } from './app-state.ts';
import { AppTransition } from './app-transition.entity.ts';
import { App, type AppStatus, type Screenshot } from './app.entity.ts';
import { NO_STATS, toOwnerAppView, type AppStats } from './app-view.ts';
import {
  MAX_SCREENSHOTS,
  MIN_SCREENSHOTS_TO_SUBMIT,
  type AssetCheckView,
  type CreateAppInput,
  type OwnerAppView,
  type ScreenshotInput,
  type UpdateAppInput,
} from './apps.model.ts';
import { renderLongDescription } from './markdown.ts';
import { attachSlug, reserveSlug, slugify } from './slug.ts';

/** What services that enqueue follow-up jobs need: the EntityManager to fork and the transactional queue. */
export interface AppServiceDeps {
  em: EntityManager;
  jobs: JobQueue;
}

const developerActor = (developerId: string) => `developer:${developerId}`;

// ---------------------------------------------------------------------------------------------
// Owner views

interface AssetCheckRow {
  app_id: string;
  field: string;
  url: string;
  ok: boolean;
  format: string | null;
  width: number | null;
  height: number | null;
  problems: string[];
  checked_at: Date;
}

interface PendingRevisionRow {
  id: string;
  app_id: string;
  changes: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const inList = (values: readonly unknown[]) => values.map(() => '?').join(', ');

/**
 * Owner views of several apps with three batched reads (stats, asset checks, pending
 * revisions) rather than three per app.
 */
export async function toOwnerViews(em: EntityManager, apps: App[]): Promise<OwnerAppView[]> {
  if (apps.length === 0) return [];
  const ids = apps.map((app) => app.id);
  const [stats, checks, revisions] = await Promise.all([
    em.execute<{ app_id: string; install_count: number; review_count: number; average_rating: string }[]>(
      `select app_id, install_count, review_count, average_rating from app_stats where app_id in (${inList(ids)})`,
      ids,
    ),
    em.execute<AssetCheckRow[]>(
      `select app_id, field, url, ok, format, width, height, problems, checked_at
       from asset_checks where app_id in (${inList(ids)}) order by field`,
      ids,
    ),
    em.execute<PendingRevisionRow[]>(
      `select id, app_id, changes, created_at, updated_at from app_revisions where status = 'PENDING' and app_id in (${inList(ids)})`,
      ids,
    ),
  ]);
  return apps.map((app) => {
    const stat = stats.find((row) => row.app_id === app.id);
    const appStats: AppStats = stat
      ? { installCount: stat.install_count, reviewCount: stat.review_count, averageRating: Number(stat.average_rating) }
      : NO_STATS;
    const assetChecks: Static<typeof AssetCheckView>[] = checks
      .filter((row) => row.app_id === app.id)
      .map((row) => ({
        field: row.field,
        url: row.url,
        ok: row.ok,
        format: row.format,
        width: row.width,
        height: row.height,
        problems: row.problems,
        checkedAt: new Date(row.checked_at).toISOString(),
      }));
    const revision = revisions.find((row) => row.app_id === app.id);
    const pendingRevision = revision
      ? {
          id: revision.id,
          changes: revision.changes,
          status: 'PENDING' as const,
          createdAt: new Date(revision.created_at).toISOString(),
          updatedAt: new Date(revision.updated_at).toISOString(),
        }
      : null;
    return toOwnerAppView(app, appStats, { assetChecks, pendingRevision });
  });
}

export async function toOwnerView(em: EntityManager, app: App): Promise<OwnerAppView> {
  const [view] = await toOwnerViews(em, [app]);
  return view!;
}

// ---------------------------------------------------------------------------------------------
// Shared rules: URLs, screenshots, applying changes, recording transitions

type ListingUrls = Pick<UpdateAppInput, 'logoUrl' | 'bannerUrl' | 'websiteUrl' | 'supportUrl' | 'privacyPolicyUrl' | 'termsOfServiceUrl' | 'screenshots'>;

/** Every URL a create, PUT or revision stores, through the environment's URL policy. */
export function assertListingUrls(urls: UrlPolicy, input: ListingUrls): void {
  urls.assertAllowed({
    logoUrl: input.logoUrl,
    bannerUrl: input.bannerUrl,
    websiteUrl: input.websiteUrl,
    supportUrl: input.supportUrl,
    privacyPolicyUrl: input.privacyPolicyUrl,
    termsOfServiceUrl: input.termsOfServiceUrl,
    ...Object.fromEntries((input.screenshots ?? []).map((shot, i) => [`screenshots[${i}].url`, shot.url])),
  });
}

/** `order` defaults to the position in the array and `caption` to null; stored in display order. */
function normaliseScreenshots(input: Static<typeof ScreenshotInput>[]): Screenshot[] {
  return input
    .map((shot, index) => ({ url: shot.url, caption: shot.caption ?? null, order: shot.order ?? index }))
    .sort((a, b) => a.order - b.order);
}

const assetFingerprint = (app: App) =>
  JSON.stringify([app.logoUrl ?? null, app.bannerUrl ?? null, app.screenshots.map((shot) => shot.url)]);

/**
 * Applies a PUT-shaped change set to an app inside the caller's transaction (a developer's PUT
 * and an approved revision both come here), bumping its version. A never-approved app follows
 * its name to a new slug; once approved, the slug is fixed. Returns what the caller must
 * follow up on.
 */
export async function applyAppChanges(
  tx: EntityManager,
  app: App,
  changes: UpdateAppInput,
): Promise<{ assetsChanged: boolean; categoryChanged: boolean }> {
  const assetsBefore = assetFingerprint(app);
  const categoryBefore = app.category;
  const { name, longDescription, screenshots, ...plain } = changes;
  if (name !== undefined && name !== app.name) {
    if (!app.firstApprovedAt && slugify(name) !== slugify(app.name)) app.slug = await reserveSlug(tx, name, app.id);
    app.name = name;
  }
  if (longDescription !== undefined) {
    app.longDescription = longDescription;
    app.longDescriptionHtml = renderLongDescription(longDescription);
  }
  if (screenshots !== undefined) app.screenshots = normaliseScreenshots(screenshots);
  tx.assign(app, Object.fromEntries(Object.entries(plain).filter(([, value]) => value !== undefined)));
  app.version += 1;
  return { assetsChanged: assetFingerprint(app) !== assetsBefore, categoryChanged: app.category !== categoryBefore };
}

/** One row in the app's history per status change (and per featuring or revision decision). */
export function recordTransition(
  tx: EntityManager,
  app: App,
  entry: { actor: string; action: string; from: AppStatus; reason?: string | null },
): void {
  tx.create(AppTransition, {
    appId: app.id,
    actor: entry.actor,
    action: entry.action,
    fromStatus: entry.from,
    toStatus: app.status,
    version: app.version,
    reason: entry.reason ?? null,
  });
}

/** The owner's app, locked for the rest of the transaction; another developer's app is 404. */
export async function lockOwnApp(tx: EntityManager, developerId: string, appId: string): Promise<App> {
  const app = await tx.findOne(App, { id: appId, developer: developerId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!app) throw notFound('App');
  return app;
}

/**
 * An app as admins name it (the CLI, the console): by id or by its current slug, locked for
 * the rest of the transaction. A slug may itself look like a UUID, so both are tried then.
 */
export async function lockAppByRef(tx: EntityManager, ref: string): Promise<App> {
  const where = Value.Check(Uuid, ref) ? { $or: [{ id: ref.toLowerCase() }, { slug: ref }] } : { slug: ref };
  const app = await tx.findOne(App, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!app) throw notFound('App');
  return app;
}

// ---------------------------------------------------------------------------------------------
// Developer operations

export async function createApp(
  { em, jobs }: AppServiceDeps,
  developerId: string,
  input: CreateAppInput,
  urls: UrlPolicy,
): Promise<OwnerAppView> {
  assertListingUrls(urls, input);
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
  { em, jobs }: AppServiceDeps,
  developerId: string,
  appId: string,
  input: UpdateAppInput,
  urls: UrlPolicy,
): Promise<OwnerAppView> {
  assertListingUrls(urls, input);
  const app = await em.transactional(async (tx) => {
    const locked = await lockOwnApp(tx, developerId, appId);
    assertEditable(locked.status, 'edit');
    if (input.oauthClientId) await assertClientBelongsTo(tx, input.oauthClientId, developerId);
    const { assetsChanged } = await applyAppChanges(tx, locked, input);
    if (assetsChanged) await enqueueAssetChecks(jobs, tx, locked.id);
    return locked;
  });
  return toOwnerView(em, app);
}

/** Deletes a DRAFT, PENDING or REJECTED app and returns what it was; its slug stays reserved. */
export async function deleteApp(em: EntityManager, developerId: string, appId: string): Promise<OwnerAppView> {
  return em.transactional(async (tx) => {
    const app = await lockOwnApp(tx, developerId, appId);
    assertEditable(app.status, 'delete');
    const view = await toOwnerView(tx, app);
    tx.remove(app);
    return view;
  });
}

async function developerStatus(em: EntityManager, developerId: string): Promise<string | undefined> {
  const rows = await em.execute<{ status: string }[]>('select status from developers where id = ?', [developerId]);
  return rows[0]?.status;
}

/** What a listing lacks before it can be submitted (drafts may be incomplete). */
function missingForSubmission(app: App): FieldError[] {
  const errors: FieldError[] = [];
  if (!app.logoUrl) errors.push({ path: 'logoUrl', message: 'a logo is required to submit' });
  const count = app.screenshots.length;
  if (count < MIN_SCREENSHOTS_TO_SUBMIT || count > MAX_SCREENSHOTS) {
    errors.push({
      path: 'screenshots',
      message: `${MIN_SCREENSHOTS_TO_SUBMIT} to ${MAX_SCREENSHOTS} screenshots are required to submit (the app has ${count})`,
    });
  }
  return errors;
}

const notVerified = () =>
  new ApiError(403, 'DEVELOPER_NOT_VERIFIED', 'Apps can be submitted once an administrator has verified your developer account');

/** DRAFT or REJECTED → PENDING: queued for review. Needs a verified developer and a complete listing. */
export async function submitApp(em: EntityManager, developerId: string, appId: string): Promise<OwnerAppView> {
  const action: AppAction = 'submit';
  const app = await em.transactional(async (tx) => {
    const locked = await lockOwnApp(tx, developerId, appId);
    const to = nextStatus(action, locked.status);
    if ((await developerStatus(tx, developerId)) !== 'VERIFIED') throw notVerified();
    const missing = missingForSubmission(locked);
    if (missing.length > 0) {
      throw new ApiError(400, 'SUBMISSION_INCOMPLETE', 'The listing is incomplete; see errors for what is missing', missing);
    }
    const from = locked.status;
    locked.status = to;
    locked.submittedAt = new Date();
    locked.rejectionReason = null;
    recordTransition(tx, locked, { actor: developerActor(developerId), action, from });
    return locked;
  });
  return toOwnerView(em, app);
}

export interface PreflightResult {
  ready: boolean;
  errors: FieldError[];
}

/** The submission checklist without submitting: `ready` is whether submit would succeed now. */
export async function preflight(em: EntityManager, developerId: string, appId: string): Promise<PreflightResult> {
  const app = await em.findOne(App, { id: appId, developer: developerId });
  if (!app) throw notFound('App');
  const errors: FieldError[] = [];
  if (!(APP_TRANSITIONS.submit.from as readonly AppStatus[]).includes(app.status)) {
    errors.push({ path: 'status', message: `an app that is ${app.status} cannot be submitted` });
  }
  if ((await developerStatus(em, developerId)) !== 'VERIFIED') {
    errors.push({ path: 'developer', message: 'your developer account must be verified by an administrator' });
  }
  errors.push(...missingForSubmission(app));
  return { ready: errors.length === 0, errors };
}
