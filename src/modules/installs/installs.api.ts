import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import type { PublicRateLimits } from '../../http/rate-limit.ts';
import { networkOf } from '../../http/client-address.ts';
import { problems } from '../../http/schemas.ts';
import { SlugParams } from '../catalogue/catalogue.model.ts';
import { InstallBody, InstallResult } from './installs.model.ts';
import { INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY, recordInstalls, type Installer } from './installs.service.ts';
import { createInstallBatcher } from './install-batcher.ts';

export function installsApi(ctx: AppContext, auth: AuthPlugin, rateLimits: PublicRateLimits) {
  const installs = createInstallBatcher((requests) => recordInstalls(ctx.orm.em.fork(), ctx.jobs, requests));
  return new Elysia({ prefix: '/api/apps', tags: ['Catalogue'] }).use(rateLimits).use(auth).post(
    '/:slug/install',
    async ({ params, body, identity, clientAddress, status }) => {
      const network = networkOf(clientAddress);
      const installer: Installer = identity
        ? { kind: 'user', platformUserId: identity.subject }
        : body.installationId
          ? { kind: 'installation', installationId: body.installationId, network }
          : { kind: 'network', network };
      return status(201, await installs.record({ slug: params.slug, installer }));
    },
    {
      // The token first: a bad one is 401 without spending the address's write budget.
      optionalPlatformToken: true,
      rateLimit: 'write',
      params: SlugParams,
      body: InstallBody,
      response: { 201: InstallResult, ...problems('NOT_FOUND', 'APP_UNAVAILABLE') },
      detail: {
        summary: 'Record an installation',
        description:
          'No authentication needed; an optional platform OAuth bearer token identifies the user. Each installer counts once per app: the OAuth user, else `installationId`, else the client address (an IPv6 /64) per UTC day. ' +
          `Anonymous installation ids count only within a budget of ${INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY} per address per app per UTC day; beyond it an install is answered and recorded, but not counted. ` +
          'A repeat answers 201 with the first `installedAt`. `installCount` reflects a new install within seconds.',
      },
    },
  );
}
