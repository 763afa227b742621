import { defineEntity, p } from '@mikro-orm/postgresql';
import { Developer } from '../developers/developer.entity.ts';

export const SCOPES = ['APP_CREATE', 'APP_READ', 'APP_UPDATE', 'APP_DELETE', 'ANALYTICS_READ'] as const;
export type Scope = (typeof SCOPES)[number];

const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => Bun.randomUUIDv7()),
    developer: () => p.manyToOne(Developer).deleteRule('cascade'),
    /** The key that minted this one; null when minted with the OAuth token. */
    parentKeyId: p.uuid().nullable(),
    /** Set on keys exchanged by trusted publishing: the key reaches this one app and nothing else. */
    appId: p.uuid().nullable(),
    /** A team key reaches only that team's apps, and only while its developer is a member. */
    teamId: p.uuid().nullable(),
    name: p.string(),
    scopes: p.array<Scope>(),
    /** HMAC-SHA256 of the full key under the secret named by `secretId`. */
    keyHash: p.string().hidden(),
    secretId: p.string().hidden(),
    last4: p.string(),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);
