import { validationFailed } from '../../http/problem.ts';

/**
 * The reasons reviewers give most often, so a rejection is quick to write and consistent to read.
 * A reviewer picks any of them and may add their own words; the developer API returns the whole
 * text as `rejectionReason`.
 */
export const CANNED_REASONS = [
  { id: 'screenshots', text: 'The screenshots do not show the app as it works.' },
  { id: 'description', text: 'The description is incomplete or promises what the app does not do.' },
  { id: 'links', text: 'A link (website, support, privacy policy or terms) is broken or leads somewhere unrelated.' },
  { id: 'privacy', text: 'The privacy policy is missing or does not cover the data the app uses.' },
  { id: 'impersonation', text: 'The name or logo can be mistaken for another app or brand.' },
  { id: 'test-access', text: 'We could not try the app: add working test access to the notes for reviewers.' },
  { id: 'policy', text: 'The app or its listing breaks the marketplace policy.' },
] as const;

export type CannedReasonId = (typeof CANNED_REASONS)[number]['id'];

const MAX_REASON_LENGTH = 2000;

/** The picked reasons as a list, then the reviewer's own words; empty when neither was given. */
export function composeRejectionReason(picked: readonly string[], ownWords: string | undefined): string {
  const unknown = picked.filter((id) => !CANNED_REASONS.some((reason) => reason.id === id));
  if (unknown.length > 0) throw validationFailed('Unknown rejection reason', [{ path: 'reasons', message: `unknown: ${unknown.join(', ')}` }]);
  const own = ownWords?.trim() ?? '';
  if (own.length > MAX_REASON_LENGTH) {
    throw validationFailed('The reason is too long', [{ path: 'reason', message: `at most ${MAX_REASON_LENGTH} characters` }]);
  }
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(own)) {
    throw validationFailed('The reason contains control characters', [{ path: 'reason', message: 'must be plain text' }]);
  }
  const lines = CANNED_REASONS.filter((reason) => picked.includes(reason.id)).map((reason) => `- ${reason.text}`);
  return [...lines, ...(own ? [own] : [])].join('\n');
}
