import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { ApiError, validationFailed } from '../../http/problem.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import { findDeveloper } from '../developers/developers.service.ts';
import { OAuthClient } from './oauth-client.entity.ts';

export interface OAuthClientRecord {
  clientId: string;
  developerId: string;
  name: string;
  createdAt: string;
}

// Same bounds as an app's `oauthClientId`: one line, no spaces or control characters.
const CLIENT_ID = /^[^\s\u0000-\u001F\u007F]{1,200}$/;
const CLIENT_NAME = /^[^\u0000-\u001F\u007F]{1,80}$/;

const clientExists = (clientId: string) => new ApiError(409, 'CONFLICT', `OAuth client "${clientId}" is already registered`);

/**
 * Admins (support) register the OAuth clients a developer's apps may name; developers never
 * create them themselves, so an app cannot claim someone else's client.
 */
export async function registerOAuthClient(
  em: EntityManager,
  input: { developer: string; clientId: string; name: string },
  actor: Actor,
): Promise<OAuthClientRecord> {
  const name = input.name.trim();
  const errors = [
    ...(CLIENT_ID.test(input.clientId) ? [] : [{ path: 'clientId', message: 'must be 1–200 characters without spaces' }]),
    ...(CLIENT_NAME.test(name) ? [] : [{ path: 'name', message: 'must be 1–80 characters on one line' }]),
  ];
  if (errors.length > 0) throw validationFailed('The OAuth client is invalid', errors);
  try {
    return await em.transactional(async (tx) => {
      const developer = await findDeveloper(tx, input.developer);
      if (await tx.findOne(OAuthClient, { clientId: input.clientId })) throw clientExists(input.clientId);
      const client = tx.create(OAuthClient, { clientId: input.clientId, developer, name });
      recordAudit(tx, actor, {
        action: 'oauth-client.register',
        subjectType: 'oauth-client',
        subjectId: client.clientId,
        after: { developerId: developer.id, name },
      });
      await tx.flush();
      return { clientId: client.clientId, developerId: developer.id, name: client.name, createdAt: client.createdAt.toISOString() };
    });
  } catch (error) {
    // Two registrations of one client id racing past the check: the primary key decides.
    if (error instanceof UniqueConstraintViolationException) throw clientExists(input.clientId);
    throw error;
  }
}

/** An app may name only a client registered to its own developer. */
export async function assertClientBelongsTo(em: EntityManager, clientId: string, developerId: string): Promise<void> {
  if ((await em.count(OAuthClient, { clientId, developer: developerId })) === 0) {
    throw new ApiError(400, 'UNKNOWN_OAUTH_CLIENT', 'oauthClientId does not name an OAuth client registered to you', [
      { path: 'oauthClientId', message: 'no such OAuth client is registered to you; ask support to register it' },
    ]);
  }
}
