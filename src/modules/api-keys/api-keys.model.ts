import { t, type Static } from 'elysia';
import { NullableTimestamp, SingleLine, Timestamp } from '../../http/schemas.ts';
import { SCOPES } from './api-key.entity.ts';

export const ScopeSchema = t.UnionEnum(SCOPES, { description: 'API key scope' });

export const CreateApiKeyBody = t.Object(
  {
    name: SingleLine(1, 80, 'Label of the key'),
    scopes: t.Array(ScopeSchema, { minItems: 1, maxItems: 20, description: 'At least one scope; duplicates are ignored' }),
    expiresInDays: t.Optional(t.Integer({ minimum: 1, maximum: 365, default: 90, description: 'Lifetime in days (1–365, default 90)' })),
  },
  { additionalProperties: false },
);
export type CreateApiKeyInput = Static<typeof CreateApiKeyBody>;

export const ApiKeyView = t.Object({
  id: t.String({ format: 'uuid' }),
  name: t.String(),
  scopes: t.Array(ScopeSchema),
  maskedKey: t.String({ description: 'Prefix and last four characters' }),
  parentKeyId: t.Union([t.String({ format: 'uuid' }), t.Null()], { description: 'The key that minted this one, if any' }),
  appId: t.Union([t.String({ format: 'uuid' }), t.Null()], {
    description: 'Set on a key exchanged by trusted publishing: it reaches only this app (APP_READ, APP_UPDATE) for 15 minutes',
  }),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  lastUsedAt: NullableTimestamp,
  revokedAt: NullableTimestamp,
});
export type ApiKeyView = Static<typeof ApiKeyView>;

export const CreatedApiKey = t.Composite([
  ApiKeyView,
  t.Object({ key: t.String({ description: 'The full key. Shown only in this response: store it now.' }) }),
]);
