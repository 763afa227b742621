import type { App } from './app.entity.ts';

/**
 * The fields of a listing a developer writes (everything PUT takes, `environment` aside), in the
 * order a reviewer reads them. Diffs, snapshots and support edits all speak of these.
 */
export const LISTING_FIELDS = [
  'name',
  'description',
  'longDescription',
  'category',
  'logoUrl',
  'bannerUrl',
  'screenshots',
  'websiteUrl',
  'supportUrl',
  'privacyPolicyUrl',
  'termsOfServiceUrl',
  'oauthClientId',
  'permissions',
  'dataHandling',
  'reviewNotes',
] as const;
export type ListingField = (typeof LISTING_FIELDS)[number];

export type Listing = Record<ListingField, unknown>;

export const LISTING_LABELS: Record<ListingField, string> = {
  name: 'Name',
  description: 'Description',
  longDescription: 'Long description',
  category: 'Category',
  logoUrl: 'Logo URL',
  bannerUrl: 'Banner URL',
  screenshots: 'Screenshots',
  websiteUrl: 'Website URL',
  supportUrl: 'Support URL',
  privacyPolicyUrl: 'Privacy policy URL',
  termsOfServiceUrl: 'Terms of service URL',
  oauthClientId: 'OAuth client',
  permissions: 'Permissions',
  dataHandling: 'Data handling',
  reviewNotes: 'Notes for reviewers',
};

/** The listing as stored now, every field present (null when empty). */
export function listingOf(app: App): Listing {
  return Object.fromEntries(
    LISTING_FIELDS.map((field) => [field, field === 'screenshots' ? app.screenshots.map((s) => ({ ...s })) : (app[field] ?? null)]),
  ) as Listing;
}
