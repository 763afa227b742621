import type { EntityManager } from '@mikro-orm/postgresql';
import type { Static } from 'elysia';
import type { App, Screenshot } from './app.entity.ts';
import type { ScreenshotInput, UpdateAppInput } from './apps.model.ts';
import { renderLongDescription } from './markdown.ts';
import { reserveSlug, slugify } from './slug.ts';
import type { UrlPolicy } from './url-policy.ts';

/** The editing rules every change to a listing shares: a developer's PUT, an approved revision, a support edit. */
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
export function normaliseScreenshots(input: Static<typeof ScreenshotInput>[]): Screenshot[] {
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

