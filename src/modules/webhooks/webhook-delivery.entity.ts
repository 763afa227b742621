import { defineEntity, p } from '@mikro-orm/postgresql';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

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
    endpointId: p.uuid(),
    eventId: p.uuid(),
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
