import type { Config } from '../config.ts';
import { validationFailed } from './problem.ts';

/**
 * What the schemas cannot know: whether a URL must be https. For an app listing that depends
 * on the app's `environment` (`assertListingUrls`); for the developer's own profile, on whether
 * the service runs in production. Every URL a caller stores passes through `assertUrls`.
 */
export function assertUrls(fields: Record<string, string | null | undefined>, options: { httpsOnly: boolean }): void {
  const errors = Object.entries(fields).flatMap(([path, value]) => {
    if (value === null || value === undefined) return [];
    if (!URL.canParse(value)) return [{ path, message: 'must be an absolute URL' }];
    if (options.httpsOnly && new URL(value).protocol !== 'https:') return [{ path, message: 'must be an https:// URL' }];
    return [];
  });
  if (errors.length > 0) throw validationFailed('The request body is invalid', errors);
}

export interface UrlPolicy {
  assertAllowed(fields: Record<string, string | null | undefined>): void;
}

/** The service's own rule (developer profiles): https only when it runs in production. */
export function createUrlPolicy(config: Pick<Config, 'env'>): UrlPolicy {
  const httpsOnly = config.env === 'production';
  return { assertAllowed: (fields) => assertUrls(fields, { httpsOnly }) };
}
