import type { Config } from '../../config.ts';
import { validationFailed } from '../../http/problem.ts';
import { assertFetchableUrl, SafeFetchError } from '../../lib/safe-fetch.ts';
import { createUrlPolicy } from '../../http/url-policy.ts';

/**
 * Where a webhook may point: https in production (the apps' URL rule), no credentials in the URL
 * (deliveries would drop them), and an address the SSRF guard accepts — checked when the URL is
 * stored and again by every delivery.
 */
export type WebhookUrlPolicy = (url: string) => Promise<void>;

const LOOKUP_TIMEOUT_MS = 5_000;

export function createWebhookUrlPolicy(config: Pick<Config, 'env' | 'allowPrivateFetch'>): WebhookUrlPolicy {
  const urls = createUrlPolicy(config);
  return async (url) => {
    urls.assertAllowed({ url });
    const parsed = new URL(url);
    if (parsed.username || parsed.password) throw refused('must not contain credentials');
    try {
      await assertFetchableUrl(url, { allowPrivate: config.allowPrivateFetch, timeoutMs: LOOKUP_TIMEOUT_MS });
    } catch (error) {
      if (error instanceof SafeFetchError) throw refused(`is refused: ${error.reason}`);
      throw error;
    }
  };
}

const refused = (message: string) => validationFailed('The request body is invalid', [{ path: 'url', message }]);
