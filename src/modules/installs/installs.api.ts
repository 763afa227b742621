import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import { createClientAddressResolver } from '../../http/client-address.ts';
import { ApiError, validationFailed } from '../../http/problem.ts';
import { problems } from '../../http/schemas.ts';
import { looksLikeApiKey } from '../api-keys/key-format.ts';
import { SlugParams } from '../catalogue/catalogue.model.ts';
import type { PlatformIdentity } from '../identity/platform-identity.ts';
import { InstallBody, InstallResult } from './installs.model.ts';
import { recordInstall, type Installer } from './installs.service.ts';

const unauthenticated = (detail: string) => new ApiError(401, 'UNAUTHENTICATED', detail);

/** The platform user behind an optional bearer token: none without the header, 401 for anything but a valid platform token. */
async function optionalPlatformIdentity(ctx: AppContext, authorization: string | undefined): Promise<PlatformIdentity | null> {
  if (authorization === undefined) return null;
  const token = authorization.match(/^Bearer[ ]+([^\s]+)[ ]*$/i)?.[1];
  if (!token) throw unauthenticated('The Authorization header must be "Bearer <platform OAuth token>"');
  if (looksLikeApiKey(token)) throw unauthenticated('This endpoint takes the platform OAuth token, not an API key');
  const identity = await ctx.verifier.verify(token);
  if (!identity) throw unauthenticated('The token is invalid, expired or not issued to a first-party client');
  return identity;
}

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

export function installsApi(ctx: AppContext) {
  const clientAddress = createClientAddressResolver(ctx.config.trustedProxies);
  return new Elysia({ prefix: '/api/apps', tags: ['Catalogue'] }).post(
    '/:slug/install',
    async ({ params, body, headers, request, server, status }) => {
      const identity = await optionalPlatformIdentity(ctx, headers.authorization);
      const installer: Installer = identity
        ? { kind: 'user', platformUserId: identity.subject }
        : body.installationId
          ? { kind: 'installation', installationId: body.installationId }
          : { kind: 'address', address: clientAddress(request, server) };
      return status(201, await recordInstall(ctx.orm.em.fork(), ctx.jobs, params.slug, installer));
    },
    {
      params: SlugParams,
      // 'json' never runs (parseOptionalJson always answers); it tells the OpenAPI document the body is JSON.
      parse: [parseOptionalJson, 'json'],
      body: InstallBody,
      response: { 201: InstallResult, ...problems(400, 401, 404, 410) },
      detail: {
        summary: 'Record an installation',
        description:
          'No authentication needed; an optional platform OAuth bearer token identifies the user. Each installer counts once per app: the OAuth user, else `installationId`, else the client address per UTC day. A repeat answers 201 with the first `installedAt`. `installCount` reflects a new install within seconds.',
        security: [{}, { bearer: [] }],
      },
    },
  );
}
