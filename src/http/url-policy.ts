import type { Config } from '../../config.ts';
import { validationFailed } from '../../http/problem.ts';

/**
 * What the schemas cannot know: whether the environment demands https. Every URL a caller
 * stores passes through here, so the rule lives in one place.
 */
export interface UrlPolicy {
  assertAllowed(fields: Record<string, string | null | undefined>): void;
}

export function createUrlPolicy(config: Pick<Config, 'env'>): UrlPolicy {
  const httpsOnly = config.env === 'production';
  return {
    assertAllowed(fields) {
      const errors = Object.entries(fields).flatMap(([path, value]) => {
        if (value === null || value === undefined) return [];
        if (!URL.canParse(value)) return [{ path, message: 'must be an absolute URL' }];
        if (httpsOnly && new URL(value).protocol !== 'https:') return [{ path, message: 'must use https' }];
        return [];
      });
      if (errors.length > 0) throw validationFailed('The request body is invalid', errors);
    },
  };
}
