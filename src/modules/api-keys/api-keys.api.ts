import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import { DataList, IdParams, problems } from '../../http/schemas.ts';
import { accessProblems } from '../teams/access.ts';
import { VERIFIED_PROBLEMS } from '../developers/verification.ts';
import { ApiKeyView, CreateApiKeyBody, CreatedApiKey } from './api-keys.model.ts';
import { createApiKey, listApiKeys, revokeApiKey, toApiKeyView } from './api-keys.service.ts';

export function apiKeysApi(ctx: AppContext, auth: AuthPlugin) {
  const [signingSecret] = ctx.config.apiKeySecrets;
  if (!signingSecret) throw new Error('No API key secret configured');
  return new Elysia({ prefix: '/api/dev/api-keys', tags: ['API keys'] })
    .use(auth)
    .post(
      '',
      async ({ principal, body, status }) => {
        const { key, fullKey } = await createApiKey(ctx.orm.em.fork(), principal, body, signingSecret);
        return status(201, { ...toApiKeyView(key), key: fullKey });
      },
      {
        developer: { scope: true, limit: 'keyCreations' },
        body: CreateApiKeyBody,
        response: {
          201: CreatedApiKey,
          ...problems('INSUFFICIENT_SCOPE', ...VERIFIED_PROBLEMS, 'UNAUTHENTICATED', 'LIMIT_EXCEEDED', ...accessProblems('read')),
        },
        detail: {
          summary: 'Create an API key',
          description:
            'OAuth token or an existing API key. The full key is in `key`, in this response only. A key minted with a key holds only scopes its parent has and expires no later than it.',
        },
      },
    )
    .get('', async ({ principal }) => ({ data: (await listApiKeys(ctx.orm.em.fork(), principal.developerId)).map(toApiKeyView) }), {
      developer: true,
      response: { 200: DataList(ApiKeyView, 'Your API keys') },
      detail: { summary: 'List your API keys (masked)' },
    })
    .delete('/:id', async ({ principal, params }) => toApiKeyView(await revokeApiKey(ctx.orm.em.fork(), principal, params.id)), {
      developer: true,
      params: IdParams,
      response: { 200: ApiKeyView, ...problems('NOT_FOUND') },
      detail: {
        summary: 'Revoke an API key',
        description: 'Revokes the key and every key minted from it. With a key, only itself and keys it minted can be revoked.',
      },
    });
}
