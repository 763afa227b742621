import { defineEntity, p } from '@mikro-orm/postgresql';
import { WebhookEndpoint } from './webhook-endpoint.entity.ts';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** An event as it was signed and sent (`body`), once per developer; deliveries carry it to each endpoint. */
const WebhookEventSchema = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_events',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    developerId: p.uuid(),
    type: p.string(),
    body: p.text().lazy(),
    /** An event a periodic scan may find twice is stored once under this key. */
    dedupeKey: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class WebhookEvent extends WebhookEventSchema.class {}
WebhookEventSchema.setClass(WebhookEvent);

/**
 * One event's delivery to one endpoint, and its latest attempt. Claims and their leases are
 * atomic SQL (`webhook-delivery.ts`); the console and the API read it as an entity.
 */
const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    endpoint: () => p.manyToOne(WebhookEndpoint).deleteRule('cascade'),
    event: () => p.manyToOne(WebhookEvent).deleteRule('cascade'),
    status: p.enum(DELIVERY_STATUSES),
    attempts: p.integer().default(0),
    /** False for a test ping: one attempt, no retries. */
    retries: p.boolean(),
    nextAttemptAt: p.datetime().nullable(),
    leasedUntil: p.datetime().nullable(),
    lastAttemptAt: p.datetime().nullable(),
    statusCode: p.integer().nullable(),
    latencyMs: p.integer().nullable(),
    error: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export class WebhookDelivery extends WebhookDeliverySchema.class {}
WebhookDeliverySchema.setClass(WebhookDelivery);
