import { EXIT, PublishError } from './errors.ts';
import type { PublisherEnv } from './settings.ts';

/**
 * The CI job's OIDC token: GitHub Actions hands one out at ACTIONS_ID_TOKEN_REQUEST_URL to jobs
 * with `permissions: id-token: write`; any other CI can pass its token as MARKETPLACE_OIDC_TOKEN.
 */
export async function ciIdentityToken(env: PublisherEnv): Promise<string> {
  if (env.oidcToken) return env.oidcToken;
  if (!env.actionsTokenUrl || !env.actionsTokenRequestToken) {
    throw new PublishError(
      EXIT.usage,
      '--oidc needs a CI identity token: on GitHub Actions give the job `permissions: id-token: write`; elsewhere set MARKETPLACE_OIDC_TOKEN',
    );
  }
  const url = new URL(env.actionsTokenUrl);
  url.searchParams.set('audience', env.oidcAudience);
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: `Bearer ${env.actionsTokenRequestToken}`, accept: 'application/json' } });
  } catch (error) {
    throw new PublishError(EXIT.unavailable, `Could not ask the CI for an identity token: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => ({}))) as { value?: unknown };
  if (!response.ok || typeof body.value !== 'string') {
    throw new PublishError(EXIT.usage, `The CI refused an identity token (${response.status}): check the job's id-token permission`);
  }
  return body.value;
}
