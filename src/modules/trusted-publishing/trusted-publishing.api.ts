import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import { accessProblems, callerOf } from '../teams/access.ts';
import { DataList, IdParams, problems, rateLimitedProblem } from '../../http/schemas.ts';
import { createClientAddressResolver } from '../../http/client-address.ts';
import { networkOf } from '../../lib/ip-address.ts';
import { perMinute } from '../../http/rate-limit.ts';
import { createExchangeAttempts } from './exchange-attempts.ts';
import { createIssuerKeys } from './issuer-keys.ts';
import {
  CreateTrustedPublisherBody,
  ExchangedKey,
  TokenExchangeBody,
  TrustedPublisherParams,
  TrustedPublisherView,
} from './trusted-publishing.model.ts';
import { addTrustedPublisher, exchangeToken, listTrustedPublishers, removeTrustedPublisher } from './trusted-publishing.service.ts';

export function trustedPublishingApi(ctx: AppContext, auth: AuthPlugin) {
  const config = ctx.config.trustedPublishing;
  const issuerKeys = createIssuerKeys({ allowPrivate: ctx.config.allowPrivateFetch });
  const em = () => ctx.orm.em.fork();
  const clientAddress = createClientAddressResolver(ctx.config.trustedProxies);
  const { exchangeFailuresPerMinute } = ctx.config.rateLimits;
  const limited = createExchangeAttempts(ctx.orm, exchangeFailuresPerMinute);
  const exchangeDeps = { config, issuerKeys, signingSecret: ctx.config.apiKeySecrets[0]! };
  return new Elysia({ prefix: '/api/dev', tags: ['Trusted publishing'] })
    .use(auth)
    .get(
      '/apps/:id/trusted-publishers',
      async ({ principal, params }) => ({ data: await listTrustedPublishers(em(), callerOf(principal), params.id) }),
      {
        apiKey: 'APP_UPDATE',
        params: IdParams,
        response: { 200: DataList(TrustedPublisherView, 'The CI workflows that may publish this app'), ...problems(...accessProblems('edit')) },
        detail: { summary: 'List the CI workflows that may publish this app', description: 'Needs APP_UPDATE.' },
      },
    )
    .post(
      '/apps/:id/trusted-publishers',
      async ({ principal, params, body, status }) => status(201, await addTrustedPublisher(em(), config, callerOf(principal), params.id, body)),
      {
        apiKey: 'APP_UPDATE',
        params: IdParams,
        body: CreateTrustedPublisherBody,
        response: { 201: TrustedPublisherView, ...problems(...accessProblems('edit'), 'VALIDATION_FAILED', 'TRUSTED_PUBLISHER_EXISTS') },
        detail: {
          summary: 'Let a CI workflow publish this app without a stored key',
          description:
            'Needs APP_UPDATE. Tokens of `issuer` (one of TRUSTED_PUBLISHING_ISSUERS) for this repository, workflow file and (when given) environment can then be exchanged for a 15-minute key to this app. One workflow publishes one app: 409 TRUSTED_PUBLISHER_EXISTS otherwise. Audited.',
        },
      },
    )
    .delete(
      '/apps/:id/trusted-publishers/:publisherId',
      async ({ principal, params }) => removeTrustedPublisher(em(), callerOf(principal), params.id, params.publisherId),
      {
        apiKey: 'APP_UPDATE',
        params: TrustedPublisherParams,
        response: { 200: TrustedPublisherView, ...problems(...accessProblems('edit')) },
        detail: {
          summary: 'Stop trusting a CI workflow',
          description: 'Needs APP_UPDATE. Keys it already obtained expire on their own within 15 minutes; revoke them to end them sooner.',
        },
      },
    )
    .post(
      '/trusted-publishing/exchange',
      async ({ body, status, request, server }) =>
        status(201, await limited(networkOf(clientAddress(request, server)), (options) => exchangeToken(em(), exchangeDeps, body.token, options))),
      {
        body: TokenExchangeBody,
        response: {
          201: ExchangedKey,
          ...problems('UNAUTHENTICATED'),
          429: rateLimitedProblem(
            perMinute(
              exchangeFailuresPerMinute,
              'refused token exchanges per client address (an IPv6 /64), shared by every process; past it a valid token whose issuer keys are held is still served',
            ),
          ),
        },
        detail: {
          summary: "Trade a CI job's OIDC token for a short-lived key",
          description: `No other credential. The token must come from a trusted issuer, be addressed to \`${config.audience}\`, be unexpired and unused (\`jti\`), and its repository, workflow file (from \`job_workflow_ref\`) and environment must match a trusted publisher. Returns an API key with APP_READ and APP_UPDATE for that app only, valid 15 minutes. A refusal is 401 whose detail names the check that failed; refusals are limited per client address (429 with \`Retry-After\`), successes are not counted.`,
        },
      },
    );
}
