import { t, type Static } from 'elysia';
import { Clearable, HttpUrl, Integer, NullableTimestamp, PageQuery, SingleLine, Timestamp, Uuid } from '../../http/schemas.ts';

/** What a developer can subscribe to. `ping` (sent by the test route) needs no subscription. */
export const WEBHOOK_EVENT_TYPES = [
  'app.submitted',
  'app.withdrawn',
  'app.approved',
  'app.rejected',
  'app.suspended',
  'app.relisted',
  'app.edited_by_support',
  'revision.approved',
  'revision.rejected',
  'revision.withdrawn',
  'review.created',
  'review.updated',
  'review.replied',
  'api_key.expiring',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const MAX_ENDPOINTS = 10;

const EventTypeSchema = t.UnionEnum(WEBHOOK_EVENT_TYPES, { default: undefined, description: 'Event type' });
const Events = t.Array(EventTypeSchema, {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The event types to deliver (at least one, no repeats)',
});
const Url = HttpUrl('Where events are POSTed; https in production; must resolve to a public address on port 80 or 443');
const Description = SingleLine(1, 200, 'A label for your own use');

export const CreateWebhookBody = t.Object(
  {
    url: Url,
    events: Events,
    description: t.Optional(Description),
    enabled: t.Optional(t.Boolean({ description: 'Default true' })),
    teamId: t.Optional(Uuid),
  },
  {
    additionalProperties: false,
    description: 'A new endpoint: where to POST which events',
    // A receiver on this machine, as in development (`ALLOW_PRIVATE_FETCH=true`); in production, a public https URL.
    examples: [{ url: 'http://localhost:4000/webhooks', events: ['app.approved', 'review.created'], description: 'Release notifications' }],
  },
);
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = t.Object(
  {
    url: t.Optional(Url),
    events: t.Optional(Events),
    description: Clearable(Description),
    enabled: t.Optional(t.Boolean({ description: 'true also re-enables an endpoint the service disabled after failures' })),
  },
  {
    additionalProperties: false,
    description: 'The endpoint fields to change: an omitted field is unchanged, `null` clears `description`',
    examples: [{ events: ['app.approved', 'app.rejected', 'review.created'], enabled: true }],
  },
);
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

export const WebhookView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    teamId: t.Union([t.String({ format: 'uuid' }), t.Null()], {
      description: "A team endpoint receives the events of that team's apps; a personal one (null) those of your personal apps only",
    }),
    url: t.String(),
    description: t.Union([t.String(), t.Null()]),
    events: t.Array(EventTypeSchema),
    enabled: t.Boolean(),
    disabledReason: t.Union([t.Literal('failing'), t.Null()], {
      description: '`failing` when the service disabled the endpoint after 3 days of failed deliveries',
    }),
    disabledAt: NullableTimestamp,
    failingSince: t.Union([Timestamp, t.Null()], { description: 'Start of the current run of failed attempts; null after a success' }),
    previousSecretExpiresAt: t.Union([Timestamp, t.Null()], {
      description: 'Until then deliveries are also signed with the secret replaced by the last rotation',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'A webhook endpoint (its secret is never shown again after creation or rotation)' },
);
export type WebhookView = Static<typeof WebhookView>;

export const WebhookWithSecret = t.Composite(
  [WebhookView, t.Object({ secret: t.String({ description: 'The signing secret (`whsec_…`). Shown only in this response: store it now.' }) })],
  { description: 'The endpoint with its signing secret, shown this once' },
);

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
const DeliveryStatusSchema = t.UnionEnum(DELIVERY_STATUSES, { default: undefined });

export const DeliveryView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    eventId: t.String({ format: 'uuid', description: 'Also the `webhook-id` header and the payload `id`: the same on every attempt' }),
    eventType: t.String(),
    status: t.UnionEnum(DELIVERY_STATUSES, { description: '`pending` until an attempt succeeds or the retries are used up' }),
    attempt: Integer({ description: 'Attempts made so far' }),
    statusCode: t.Union([Integer(), t.Null()], { description: 'The status of the latest attempt; null when no response came' }),
    latencyMs: t.Union([Integer(), t.Null()]),
    error: t.Union([t.String(), t.Null()], { description: 'Why the latest attempt failed; null after a success' }),
    nextAttemptAt: t.Union([Timestamp, t.Null()], { description: 'When the next attempt is due; null once the delivery is settled' }),
    lastAttemptAt: NullableTimestamp,
    createdAt: Timestamp,
  },
  { description: 'One event sent to one endpoint, with the outcome of its latest attempt' },
);
export type DeliveryView = Static<typeof DeliveryView>;

export const DeliveriesQuery = t.Object({ ...PageQuery, status: t.Optional(DeliveryStatusSchema) });
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const DeliveryParams = t.Object({ id: Uuid, deliveryId: Uuid });

/** A failing delivery as the console's Jobs page lists it, across developers. */
export interface FailingDelivery extends DeliveryView {
  endpointId: string;
  url: string;
  developerId: string;
  developerName: string;
  developerEmail: string;
}
