import { ApiError, type FieldError } from '../../http/problem.ts';
import { missingDisclosure, type Disclosure } from './disclosure.ts';
import { MAX_SCREENSHOTS, MIN_SCREENSHOTS_TO_SUBMIT, type UpdateAppInput } from './apps.model.ts';

/**
 * What a listing needs before anyone reviews it: a logo and 2–6 screenshots. A draft may lack
 * them; a listing in review, one being approved and a live one (after a revision) may not, so
 * the rule holds at submit, on every edit of a PENDING app, on approval and on a revision.
 */
export interface ListingAssets {
  logoUrl?: string | null;
  screenshots: readonly unknown[];
}

export function missingForReview(listing: ListingAssets): FieldError[] {
  const errors: FieldError[] = [];
  if (!listing.logoUrl) errors.push({ path: 'logoUrl', message: 'a logo is required for review' });
  const count = listing.screenshots.length;
  if (count < MIN_SCREENSHOTS_TO_SUBMIT || count > MAX_SCREENSHOTS) {
    errors.push({
      path: 'screenshots',
      message: `${MIN_SCREENSHOTS_TO_SUBMIT} to ${MAX_SCREENSHOTS} screenshots are required for review (the listing would have ${count})`,
    });
  }
  return errors;
}

function refuseIncomplete(missing: FieldError[]): void {
  if (missing.length > 0) {
    throw new ApiError(400, 'SUBMISSION_INCOMPLETE', 'The listing would be incomplete; see errors for what is missing', missing);
  }
}

export const assertCompleteListing = (listing: ListingAssets): void => refuseIncomplete(missingForReview(listing));

/**
 * What a listing needs to be submitted, to stay in review when edited and to pass a revision: its
 * assets and, when it has an OAuth client, its disclosure. (An approval checks the assets only, so
 * listings that were in review before disclosures existed can still be decided.)
 */
export type SubmittableListing = ListingAssets & Disclosure;

export const missingForSubmission = (listing: SubmittableListing): FieldError[] => [...missingForReview(listing), ...missingDisclosure(listing)];

export const assertSubmittable = (listing: SubmittableListing): void => refuseIncomplete(missingForSubmission(listing));

const after = <T>(current: T, change: T | undefined): T => (change === undefined ? current : change);

/** The listing a PUT-shaped change set would leave (omitted: unchanged; `null`: cleared). */
export function listingAfter(
  current: SubmittableListing,
  changes: Pick<UpdateAppInput, 'logoUrl' | 'screenshots' | 'oauthClientId' | 'permissions' | 'dataHandling'>,
): SubmittableListing {
  return {
    logoUrl: after(current.logoUrl, changes.logoUrl),
    screenshots: changes.screenshots ?? current.screenshots,
    oauthClientId: after(current.oauthClientId, changes.oauthClientId),
    permissions: after(current.permissions, changes.permissions),
    dataHandling: after(current.dataHandling, changes.dataHandling),
  };
}
