import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import { DataList, IdParams, Paginated, problems } from '../../http/schemas.ts';
import { createWebhookUrlPolicy } from './webhook-urls.ts';
import { accessProblems, callerOf } from '../teams/access.ts';
import { VERIFIED_PROBLEMS } from '../developers/verification.ts';
import {
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryParams,
  DeliveryView,
  UpdateWebhookBody,
  WebhookView,
  WebhookWithSecret,
} from './webhooks.model.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  rotateSecret,
  sendPing,
  updateWebhook,
} from './webhooks.service.ts';

const AUTH = 'The OAuth token, or an API key with APP_UPDATE.';

export function webhooksApi(ctx: AppContext, auth: AuthPlugin) {
  const checkUrl = createWebhookUrlPolicy(ctx.config);
  const deps = () => ({ em: ctx.orm.em.fork(), jobs: ctx.jobs, encryptionKeys: ctx.config.webhookEncryptionKeys, checkUrl });
  return new Elysia({ prefix: '/api/dev/webhooks', tags: ['Webhooks'] })
    .use(auth)
    .post('', async ({ principal, body, status }) => status(201, await createWebhook(deps(), callerOf(principal), body)), {
      developer: 'APP_UPDATE',
      body: CreateWebhookBody,
      response: { 201: WebhookWithSecret, ...problems('VALIDATION_FAILED', 'LIMIT_EXCEEDED', ...VERIFIED_PROBLEMS, ...accessProblems('webhooks')) },
      detail: {
        summary: 'Register a webhook endpoint',
        description: `${AUTH} Events are POSTed to \`url\`, signed per Standard Webhooks with the \`secret\` returned here (once: store it). The URL must use https in production and resolve to a public address on port 80 or 443 (400 otherwise). At most 10 endpoints (409 LIMIT_EXCEEDED). Needs a verified developer (403 DEVELOPER_NOT_VERIFIED, or DEVELOPER_SUSPENDED). See docs/webhooks.md for the payloads and how to verify a signature.`,
      },
    })
    .get('', async ({ principal }) => ({ data: await listWebhooks(ctx.orm.em.fork(), callerOf(principal)) }), {
      developer: 'APP_UPDATE',
      response: { 200: DataList(WebhookView, 'Your webhook endpoints') },
      detail: { summary: 'List your webhook endpoints', description: `${AUTH} Oldest first; secrets are never shown again.` },
    })
    .get('/:id', async ({ principal, params }) => getWebhook(ctx.orm.em.fork(), callerOf(principal), params.id), {
      developer: 'APP_UPDATE',
      params: IdParams,
      response: { 200: WebhookView, ...problems(...accessProblems('webhooks')) },
      detail: { summary: 'Read one of your webhook endpoints', description: `${AUTH} Another developer's endpoint is 404.` },
    })
    .put('/:id', async ({ principal, params, body }) => updateWebhook(deps(), callerOf(principal), params.id, body), {
      developer: 'APP_UPDATE',
      params: IdParams,
      body: UpdateWebhookBody,
      response: { 200: WebhookView, ...problems(...accessProblems('webhooks'), 'VALIDATION_FAILED') },
      detail: {
        summary: 'Update a webhook endpoint',
        description: `${AUTH} Omitted fields are unchanged; \`null\` clears \`description\`. \`enabled: false\` pauses deliveries; \`enabled: true\` resumes them, also after the service disabled the endpoint for failing.`,
      },
    })
    .delete('/:id', async ({ principal, params }) => deleteWebhook(ctx.orm.em.fork(), callerOf(principal), params.id), {
      developer: 'APP_UPDATE',
      params: IdParams,
      response: { 200: WebhookView, ...problems(...accessProblems('webhooks')) },
      detail: { summary: 'Delete a webhook endpoint', description: `${AUTH} Returns the deleted endpoint; its deliveries go with it.` },
    })
    .post('/:id/rotate-secret', async ({ principal, params }) => rotateSecret(deps(), callerOf(principal), params.id), {
      developer: 'APP_UPDATE',
      params: IdParams,
      response: { 200: WebhookWithSecret, ...problems(...accessProblems('webhooks')) },
      detail: {
        summary: 'Rotate the signing secret',
        description: `${AUTH} Returns the new secret (once). For 24 hours (\`previousSecretExpiresAt\`) deliveries carry a signature with each secret, so the receiver can switch over without rejecting any. Takes no body.`,
      },
    })
    .post('/:id/test', async ({ principal, params, status }) => status(201, await sendPing(deps(), callerOf(principal), params.id)), {
      developer: { scope: 'APP_UPDATE', limit: 'webhookSends' },
      params: IdParams,
      response: { 201: DeliveryView, ...problems(...accessProblems('webhooks'), ...VERIFIED_PROBLEMS, 'CONFLICT') },
      detail: {
        summary: 'Send a test event',
        description: `${AUTH} Sends a \`ping\` event to this endpoint (one attempt, no retries) and returns its delivery, pending; its result appears in the deliveries list within seconds. A disabled endpoint is 409 CONFLICT. Needs a verified developer (403 DEVELOPER_NOT_VERIFIED, or DEVELOPER_SUSPENDED); test pings and redeliveries together are limited per developer (429). Takes no body.`,
      },
    })
    .get('/:id/deliveries', async ({ principal, params, query }) => listDeliveries(ctx.orm.em.fork(), callerOf(principal), params.id, query), {
      developer: 'APP_UPDATE',
      params: IdParams,
      query: DeliveriesQuery,
      response: { 200: Paginated(DeliveryView, 'A page of the endpoint’s deliveries, newest first'), ...problems(...accessProblems('webhooks')) },
      detail: {
        summary: "An endpoint's deliveries, newest first",
        description: `${AUTH} One delivery per event, with its latest attempt: status code, latency, error and when the next retry is due. Failed attempts are retried with exponential backoff (the first after about 30 s) for at least 24 hours, then the delivery is \`failed\`. \`status\` filters.`,
      },
    })
    .post(
      '/:id/deliveries/:deliveryId/redeliver',
      async ({ principal, params }) => redeliver(deps(), callerOf(principal), params.id, params.deliveryId),
      {
        developer: { scope: 'APP_UPDATE', limit: 'webhookSends' },
        params: DeliveryParams,
        response: { 200: DeliveryView, ...problems(...accessProblems('webhooks'), ...VERIFIED_PROBLEMS, 'CONFLICT') },
        detail: {
          summary: 'Send a delivery again',
          description: `${AUTH} Attempts the delivery again now, with the same \`webhook-id\`. A settled delivery (succeeded or failed) gets one more attempt; a pending one has its next retry brought forward. 409 CONFLICT while an attempt is in flight or the endpoint is disabled. Needs a verified developer (403 DEVELOPER_NOT_VERIFIED, or DEVELOPER_SUSPENDED); limited per developer with test pings (429). Takes no body.`,
        },
      },
    );
}
