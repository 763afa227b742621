import { defineEntity, p } from '@mikro-orm/postgresql';
import { Developer } from '../developers/developer.entity.ts';

/**
 * A developer's webhook endpoint. Its signing secret is stored sealed (`src/lib/secret-box.ts`);
 * after a rotation the previous one keeps signing until `previousSecretExpiresAt`.
 */
const WebhookEndpointSchema = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    developer: () => p.manyToOne(Developer).deleteRule('cascade'),
    /** A team endpoint receives the events of that team's apps; a personal one, of personal apps only. */
    teamId: p.uuid().nullable(),
    url: p.text(),
    description: p.text().nullable(),
    events: p.array<string>(),
    enabled: p.boolean().default(true),
    /** Why the service turned it off (`failing`); null when enabled or turned off by its owner. */
    disabledReason: p.string().nullable(),
    disabledAt: p.datetime().nullable(),
    /** Start of the current run of failed attempts; cleared by any success. */
    failingSince: p.datetime().nullable(),
    secretSealed: p.text().hidden(),
    previousSecretSealed: p.text().nullable().hidden(),
    previousSecretExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export class WebhookEndpoint extends WebhookEndpointSchema.class {}
WebhookEndpointSchema.setClass(WebhookEndpoint);
