import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { consoleMirrorPath, mirrorUrl, parseAssetFile } from './asset-files.ts';
import type { OwnerAppView } from '../apps/apps.model.ts';
import { listedAssets, type ListedAsset, type ListingImages } from './listed-assets.ts';
import type { ShownImage } from '../../../views/admin/listing.ts';
export type { ShownImage };
// Raw SQL here is batch work (D106): an approved listing's published images replaced set-wise.

/**
 * What the public sees of a listing's images is fixed when an app or a revision is approved:
 * each image whose check stored a copy of the URL listed then is shown from the mirror, exactly
 * those bytes; an image without a stored copy at that moment (not fetchable, over its cap, not
 * PNG or JPEG, or its check not finished) keeps its own URL until the next approval.
 */

/**
 * Call inside the approving transaction, which holds the app's row lock (the check job locks the
 * row before writing, so no check is half-written here), after the approved values are on `app`.
 */
export async function publishReviewedAssets(tx: EntityManager, app: ListingImages & { id: string }): Promise<void> {
  await executeNamed(tx, 'delete from published_assets where app_id = :appId', { appId: app.id });
  await executeNamed(
    tx,
    `insert into published_assets (app_id, field, source_url, sha256, extension)
     select c.app_id, c.field, c.url, c.sha256, s.extension
     from asset_checks c
       join assets s on s.sha256 = c.sha256
       join jsonb_to_recordset(cast(:listed as jsonb)) as l(field text, url text) on l.field = c.field and l.url = c.url
     where c.app_id = :appId`,
    { listed: JSON.stringify(listedAssets(app)), appId: app.id },
  );
}

/** Per field, the URL a copy was published for and the copy's name; read along with the public rows. */
export type PublishedAssets = Record<string, [sourceUrl: string, sha256: string, extension: string]>;

/** SQL for the `published_assets` column of a public read whose apps are aliased `a`. */
export const PUBLISHED_ASSETS_COLUMN = `(select jsonb_object_agg(pa.field, jsonb_build_array(pa.source_url, pa.sha256, pa.extension))
  from published_assets pa where pa.app_id = a.id) as published_assets`;

/** The listing with each image that has a published copy of the URL it lists now shown from the mirror. */
export function withPublishedAssets<T extends ListingImages>(listing: T, published: PublishedAssets | null): T {
  if (!published) return listing;
  const shown = (field: string, url: string) => {
    const copy = published[field];
    return copy && copy[0] === url ? mirrorUrl(copy[1], copy[2]) : url;
  };
  const screenshots = [...listing.screenshots].sort((a, b) => a.order - b.order);
  return {
    ...listing,
    logoUrl: listing.logoUrl ? shown('logoUrl', listing.logoUrl) : listing.logoUrl,
    bannerUrl: listing.bannerUrl ? shown('bannerUrl', listing.bannerUrl) : listing.bannerUrl,
    screenshots: screenshots.map((screenshot, index) => ({ ...screenshot, url: shown(`screenshots[${index}]`, screenshot.url) })),
  };
}

/**
 * The listing's images as the reviewer sees them: each image whose check stored a copy of the URL
 * listed now is shown from the console's route to the mirror — the bytes an approval will publish;
 * the others are "not stored", with their URL as text: a review page never has the reviewer's
 * browser ask the developer's server (which could tell reviewers apart, or show them other bytes).
 */
export function imagesForReview(view: Pick<OwnerAppView, 'logoUrl' | 'bannerUrl' | 'screenshots' | 'assetChecks'>): {
  logo: ShownImage | null;
  banner: ShownImage | null;
  screenshots: ShownImage[];
} {
  const shown = (asset: ListedAsset): ShownImage => {
    const check = view.assetChecks.find((c) => c.field === asset.field && c.url === asset.url);
    const copy = check?.mirrorUrl ? parseAssetFile(check.mirrorUrl.slice(check.mirrorUrl.lastIndexOf('/') + 1)) : null;
    return copy ? { mirrored: true, url: consoleMirrorPath(copy.sha256, copy.extension) } : { mirrored: false, sourceUrl: asset.url };
  };
  const listed = listedAssets(view);
  const at = (field: string) => listed.find((asset) => asset.field === field);
  const logo = at('logoUrl');
  const banner = at('bannerUrl');
  return {
    logo: logo ? shown(logo) : null,
    banner: banner ? shown(banner) : null,
    screenshots: listed.filter((asset) => asset.field.startsWith('screenshots[')).map(shown),
  };
}
