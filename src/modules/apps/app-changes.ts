import type { EntityManager } from '@mikro-orm/postgresql';
import { assertUrls } from '../../http/url-policy.ts';
import type { Static } from 'elysia';
import type { App, Environment, Screenshot } from './app.entity.ts';
import type { ScreenshotInput, UpdateAppInput } from './apps.model.ts';
import { renderLongDescription } from './markdown.ts';
import { releaseDraftSlugs, reserveSlug, slugify } from './slug.ts';

/** The editing rules every change to a listing shares: a developer's PUT, an approved revision, a support edit. */
type ListingUrls = Pick<
  UpdateAppInput,
  'logoUrl' | 'bannerUrl' | 'websiteUrl' | 'supportUrl' | 'privacyPolicyUrl' | 'termsOfServiceUrl' | 'screenshots'
>;

/**
 * Every URL a create, PUT or revision stores. An app whose `environment` is production is used
 * by real customers: its URLs must be https whatever `APP_ENV` is; staging and localhost apps may
 * use http.
 */
export function assertListingUrls(environment: Environment, input: ListingUrls): void {
  assertUrls(
    {
      logoUrl: input.logoUrl,
      bannerUrl: input.bannerUrl,
      websiteUrl: input.websiteUrl,
      supportUrl: input.supportUrl,
      privacyPolicyUrl: input.privacyPolicyUrl,
      termsOfServiceUrl: input.termsOfServiceUrl,
      ...Object.fromEntries((input.screenshots ?? []).map((shot, i) => [`screenshots[${i}].url`, shot.url])),
    },
    { httpsOnly: environment === 'production' },
  );
}

/** `order` defaults to the position in the array and `caption` to null; stored in display order. */
export function normaliseScreenshots(input: Static<typeof ScreenshotInput>[]): Screenshot[] {
  return input.map((shot, index) => ({ url: shot.url, caption: shot.caption ?? null, order: shot.order ?? index })).sort((a, b) => a.order - b.order);
}

const assetFingerprint = (app: App) => JSON.stringify([app.logoUrl ?? null, app.bannerUrl ?? null, app.screenshots.map((shot) => shot.url)]);

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
    if (!app.firstApprovedAt && slugify(name) !== slugify(app.name)) {
      app.slug = await reserveSlug(tx, name, app.id);
      await releaseDraftSlugs(tx, app.id, app.slug);
    }
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
