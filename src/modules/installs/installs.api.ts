import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import type { PublicRateLimits } from '../../http/rate-limit.ts';
import { problems } from '../../http/schemas.ts';
import { SlugParams } from '../catalogue/catalogue.model.ts';
import { InstallBody, InstallResult, UninstallBody, UninstallResult } from './installs.model.ts';
import { recordUninstall } from './uninstalls.service.ts';
import { validationFailed } from '../../http/problem.ts';
import { INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY, recordInstalls, type Installer } from './installs.service.ts';
import { createInstallBatcher } from './install-batcher.ts';

export function installsApi(ctx: AppContext, auth: AuthPlugin, rateLimits: PublicRateLimits) {
  const installs = createInstallBatcher((requests) => recordInstalls(ctx.installWriter, ctx.jobs, requests));
  return new Elysia({ prefix: '/api/apps', tags: ['Catalogue'] })
    .model({ UninstallBody, UninstallResult })
    .use(rateLimits)
    .use(auth)
    .post(
      '/:slug/install',
      async ({ params, body, identity, clientNetwork: network, status }) => {
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
            'A repeat answers 201 with the `installedAt` of the install in force (the first, or the reinstall after an uninstall). `installCount` and `activeInstalls` reflect a new install within seconds.',
        },
      },
    )
    .post(
      '/:slug/uninstall',
      async ({ params, body, identity, clientNetwork }) => {
        if (!identity && !body.installationId) {
          throw validationFailed('Name the installer: a platform OAuth bearer token, or the `installationId` of the install', [
            { path: '/installationId', message: 'Required without a platform OAuth bearer token' },
          ]);
        }
        const installer = identity
          ? { kind: 'user' as const, platformUserId: identity.subject }
          : { kind: 'installation' as const, installationId: body.installationId!, network: clientNetwork };
        return recordUninstall(ctx.installWriter, ctx.jobs, params.slug, installer);
      },
      {
        optionalPlatformToken: true,
        rateLimit: 'write',
        params: SlugParams,
        body: 'UninstallBody',
        response: { 200: 'UninstallResult', ...problems('NOT_FOUND', 'NOT_INSTALLED', 'APP_UNAVAILABLE') },
        detail: {
          summary: 'Record an uninstallation',
          description:
            'The installer of the install: the platform OAuth bearer token, else `installationId` (neither: 400). ' +
            'A repeat answers 200 with the first `uninstalledAt`; an installer that never installed the app: 404 `NOT_INSTALLED`. A later install reactivates the installer. ' +
            `Anonymous uninstalls count within a budget of ${INSTALLATION_IDS_COUNTED_PER_NETWORK_PER_DAY} per address per app per UTC day, like installs. ` +
            '`activeInstalls` reflects an uninstall within seconds.',
        },
      },
    );
}
