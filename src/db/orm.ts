import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { Developer } from '../modules/developers/developer.entity.ts';
import { ApiKey } from '../modules/api-keys/api-key.entity.ts';
import { Admin } from '../modules/admins/admin.entity.ts';
import { AuditEntry } from '../modules/audit/audit-entry.entity.ts';
import { App } from '../modules/apps/app.entity.ts';
import { AppTransition } from '../modules/apps/app-transition.entity.ts';
import { AppRevision } from '../modules/apps/app-revision.entity.ts';
import { OAuthClient } from '../modules/oauth-clients/oauth-client.entity.ts';
import { Review } from '../modules/reviews/review.entity.ts';
import { WebhookEndpoint } from '../modules/webhooks/webhook-endpoint.entity.ts';
import { migrations } from './migrations/index.ts';
import type { Logger } from '../lib/logger.ts';

export const entities = [Developer, ApiKey, Admin, AuditEntry, OAuthClient, App, AppTransition, AppRevision, Review, WebhookEndpoint];

/** How long a request waits for a connection before the API answers 503 (the contract is "within 2 s"). */
export const CONNECT_TIMEOUT_MS = 1500;

export function ormOptions(databaseUrl: string, logger?: Logger, poolMax = 10): Options {
  return {
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: poolMax, idleTimeoutMillis: 30_000 },
    driverOptions: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, statement_timeout: 30_000 },
    // Every request forks its own EntityManager explicitly; touching the global one is a bug.
    allowGlobalContext: false,
    debug: false,
    ...(logger ? { logger: (message: string) => logger.debug(message) } : {}),
  };
}

export function createOrm(databaseUrl: string, logger?: Logger, poolMax?: number): Promise<MikroORM> {
  return MikroORM.init(ormOptions(databaseUrl, logger, poolMax));
}
