import { t, type Static } from 'elysia';
import { Integer, NullableTimestamp, SingleLine, Timestamp, Uuid } from '../../http/schemas.ts';
import { SCOPES } from './api-key.entity.ts';

export const ScopeSchema = t.UnionEnum(SCOPES, { description: 'API key scope' });

export const CreateApiKeyBody = t.Object(
  {
    name: SingleLine(1, 80, 'Label of the key'),
    scopes: t.Array(ScopeSchema, { minItems: 1, maxItems: 20, description: 'At least one scope; duplicates are ignored' }),
    expiresInDays: t.Optional(Integer({ minimum: 1, maximum: 365, default: 90, description: 'Lifetime in days (1–365, default 90)' })),
    teamId: t.Optional({ ...Uuid, description: "Restrict the key to one of your teams: it reaches only that team's apps" }),
  },
  {
    additionalProperties: false,
    description: 'A new API key: its label, scopes and lifetime',
    examples: [{ name: 'CI deploys', scopes: ['APP_READ', 'APP_UPDATE'], expiresInDays: 90 }],
  },
);
export type CreateApiKeyInput = Static<typeof CreateApiKeyBody>;

export const ApiKeyView = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    name: t.String(),
    scopes: t.Array(ScopeSchema),
    maskedKey: t.String({ description: 'Prefix and last four characters' }),
    parentKeyId: t.Union([t.String({ format: 'uuid' }), t.Null()], { description: 'The key that minted this one, if any' }),
    teamId: t.Union([t.String({ format: 'uuid' }), t.Null()], {
      description: "The team this key is restricted to: it reaches only that team's apps, and only while you are a member",
    }),
    appId: t.Union([t.String({ format: 'uuid' }), t.Null()], {
      description: 'Set on a key exchanged by trusted publishing: it reaches only this app (APP_READ, APP_UPDATE) for 15 minutes',
    }),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    lastUsedAt: NullableTimestamp,
    revokedAt: NullableTimestamp,
  },
  { description: 'An API key as it is listed: masked, never the key itself' },
);
export type ApiKeyView = Static<typeof ApiKeyView>;

export const CreatedApiKey = t.Composite(
  [ApiKeyView, t.Object({ key: t.String({ description: 'The full key. Shown only in this response: store it now.' }) })],
  { description: 'The new API key, with the full key shown this once' },
);
