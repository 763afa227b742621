import type { Screenshot } from '../apps/app.entity.ts';
import type { UpdateAppInput } from '../apps/apps.model.ts';
import { normaliseScreenshots } from '../apps/app-changes.ts';

/**
 * The images a listing shows, each named by its place: 'logoUrl', 'bannerUrl' or 'screenshots[i]'
 * (i in display order). Checks, mirrored copies and the public view all key on these names.
 */
export interface ListedAsset {
  field: string;
  url: string;
}

export interface ListingImages {
  logoUrl?: string | null;
  bannerUrl?: string | null;
  screenshots: Pick<Screenshot, 'url' | 'order'>[];
}

export function listedAssets(listing: ListingImages): ListedAsset[] {
  const assets: ListedAsset[] = [];
  if (listing.logoUrl) assets.push({ field: 'logoUrl', url: listing.logoUrl });
  if (listing.bannerUrl) assets.push({ field: 'bannerUrl', url: listing.bannerUrl });
  [...listing.screenshots]
    .sort((a, b) => a.order - b.order)
    .forEach((screenshot, index) => assets.push({ field: `screenshots[${index}]`, url: screenshot.url }));
  return assets;
}

/** The images the listing would show once a pending revision's change set is applied. */
export function proposedAssets(live: ListingImages, changes: UpdateAppInput): ListedAsset[] {
  return listedAssets({
    logoUrl: changes.logoUrl === undefined ? live.logoUrl : changes.logoUrl,
    bannerUrl: changes.bannerUrl === undefined ? live.bannerUrl : changes.bannerUrl,
    screenshots: changes.screenshots === undefined ? live.screenshots : normaliseScreenshots(changes.screenshots),
  });
}

/** Whether a change set touches any image (so a revision needs its own checks). */
export const changesImages = (changes: UpdateAppInput) =>
  changes.logoUrl !== undefined || changes.bannerUrl !== undefined || changes.screenshots !== undefined;

export const sameAsset = (a: ListedAsset, b: ListedAsset) => a.field === b.field && a.url === b.url;
