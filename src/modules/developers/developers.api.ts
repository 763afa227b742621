import { Elysia } from 'elysia';
import type { AppContext } from '../../app-context.ts';
import type { AuthPlugin } from '../identity/auth.ts';
import { problems } from '../../http/schemas.ts';
import { createUrlPolicy } from '../../http/url-policy.ts';
import { DeveloperProfile, RegisterDeveloperBody, UpdateDeveloperBody } from './developers.model.ts';
import { getDeveloper, registerDeveloper, toProfile, updateDeveloper } from './developers.service.ts';

export function developersApi(ctx: AppContext, auth: AuthPlugin) {
  const urls = createUrlPolicy(ctx.config);
  return new Elysia({ prefix: '/api/dev', tags: ['Developer profile'] })
    .use(auth)
    .post(
      '/register',
      async ({ body, identity, status }) => {
        const developer = await registerDeveloper(ctx.orm.em.fork(), identity, body, urls);
        return status(201, toProfile(developer));
      },
      {
        platformToken: true,
        body: RegisterDeveloperBody,
        response: { 201: DeveloperProfile, ...problems('PLATFORM_USER_MISMATCH', 'VALIDATION_FAILED', 'DEVELOPER_EXISTS') },
        detail: {
          summary: 'Register a developer profile',
          description:
            'Takes the platform OAuth token; `platformUserId` must be the token subject, and when the token carries a verified e-mail claim, `email` must be that address. The profile starts PENDING_VERIFICATION.',
        },
      },
    )
    .get('/me', async ({ principal }) => toProfile(await getDeveloper(ctx.orm.em.fork(), principal.developerId)), {
      apiKey: true,
      response: { 200: DeveloperProfile, ...problems('NOT_FOUND') },
      detail: { summary: 'Read your developer profile', description: 'Needs an API key (any scope).' },
    })
    .put('/me', async ({ principal, body }) => toProfile(await updateDeveloper({ em: ctx.orm.em.fork(), jobs: ctx.jobs }, principal, body, urls)), {
      developer: true,
      body: UpdateDeveloperBody,
      response: { 200: DeveloperProfile, ...problems('NOT_FOUND', 'OAUTH_TOKEN_REQUIRED', 'VALIDATION_FAILED', 'DEVELOPER_EXISTS') },
      detail: {
        summary: 'Update your developer profile',
        description:
          'OAuth token or any API key. Omitted fields are unchanged; `null` clears an optional field. platformUserId never changes. Changing `email` needs the OAuth token (403 OAUTH_TOKEN_REQUIRED with a key); when the token carries a verified e-mail claim, `email` must be that address; the old address is told of the change.',
      },
    });
}
