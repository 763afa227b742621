import { EXIT, PublishError } from './errors.ts';

/** Everything the CLI takes from its environment, read once at start. */
export interface PublisherEnv {
  url: string;
  apiKey?: string;
  oidcToken?: string;
  oidcAudience: string;
  actionsTokenUrl?: string;
  actionsTokenRequestToken?: string;
}

export function readEnv(source: Record<string, string | undefined>): PublisherEnv {
  const url = source.MARKETPLACE_URL?.replace(/\/+$/, '');
  if (!url || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new PublishError(EXIT.usage, 'Set MARKETPLACE_URL to the marketplace, e.g. https://marketplace.example.com');
  }
  return {
    url,
    apiKey: source.MARKETPLACE_API_KEY || undefined,
    oidcToken: source.MARKETPLACE_OIDC_TOKEN || undefined,
    oidcAudience: source.MARKETPLACE_OIDC_AUDIENCE || 'marketplace',
    actionsTokenUrl: source.ACTIONS_ID_TOKEN_REQUEST_URL || undefined,
    actionsTokenRequestToken: source.ACTIONS_ID_TOKEN_REQUEST_TOKEN || undefined,
  };
}
