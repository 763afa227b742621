import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import type { PublicRateLimits } from '../../http/rate-limit.ts';
import { validationFailed } from '../../http/problem.ts';
import { problems } from '../../http/schemas.ts';
import { SlugParams } from '../catalogue/catalogue.model.ts';
import { InstallBody, InstallResult } from './installs.model.ts';
import { recordInstall, type Installer } from './installs.service.ts';

/**
 * An empty body is `{}`. Elysia's own parser would also turn malformed JSON into "no body" when
 * the body is optional, so this route parses for itself and refuses what is not JSON.
 */
async function parseOptionalJson({ request }: { request: Request }): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw validationFailed('The request body is not valid JSON');
  }
}

export function installsApi(ctx: AppContext, auth: AuthPlugin, rateLimits: PublicRateLimits) {
  return new Elysia({ prefix: '/api/apps', tags: ['Catalogue'] }).use(rateLimits).use(auth).post(
    '/:slug/install',
    async ({ params, body, identity, clientAddress, status }) => {
      const installer: Installer = identity
        ? { kind: 'user', platformUserId: identity.subject }
        : body.installationId
          ? { kind: 'installation', installationId: body.installationId }
          : { kind: 'address', address: clientAddress };
      return status(201, await recordInstall(ctx.orm.em.fork(), ctx.jobs, params.slug, installer));
    },
    {
      rateLimit: 'write',
      optionalPlatformToken: true,
      params: SlugParams,
      // 'json' never runs (parseOptionalJson always answers); it tells the OpenAPI document the body is JSON.
      parse: [parseOptionalJson, 'json'],
      body: InstallBody,
      response: { 201: InstallResult, ...problems(400, 401, 404, 410, 429) },
      detail: {
        summary: 'Record an installation',
        description:
          'No authentication needed; an optional platform OAuth bearer token identifies the user. Each installer counts once per app: the OAuth user, else `installationId`, else the client address per UTC day. A repeat answers 201 with the first `installedAt`. `installCount` reflects a new install within seconds.',
      },
    },
  );
}
