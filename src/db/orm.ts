import { assertRawFragmentRegistry } from '../lib/raw-fragment-registry.ts';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { Developer } from '../modules/developers/developer.entity.ts';
import { ApiKey } from '../modules/api-keys/api-key.entity.ts';
import { Admin } from '../modules/admin-accounts/admin.entity.ts';
import { AdminSessionRecord, AdminSignInFailure } from '../modules/admin-sign-in/admin-session.entity.ts';
import { AuditEntry } from '../modules/audit/audit-entry.entity.ts';
import { App } from '../modules/apps/app.entity.ts';
import { AppTransition } from '../modules/apps/app-transition.entity.ts';
import { AppRevision } from '../modules/apps/app-revision.entity.ts';
import { OAuthClient } from '../modules/oauth-clients/oauth-client.entity.ts';
import { Review } from '../modules/reviews/review.entity.ts';
import { ReviewReply } from '../modules/reviews/review-reply.entity.ts';
import { Install } from '../modules/installs/install.entity.ts';
import { AppStats } from '../modules/stats/app-stats.entity.ts';
import { AppDailyStats } from '../modules/stats/app-daily-stats.entity.ts';
import { Asset } from '../modules/assets/asset.entity.ts';
import { AssetCheck } from '../modules/assets/asset-check.entity.ts';
import { ReviewClaim } from '../modules/listing-review/review-claim.entity.ts';
import { WebhookDelivery, WebhookEvent } from '../modules/webhooks/webhook-delivery.entity.ts';
import { Email } from '../modules/notifications/email.entity.ts';
import { WebhookEndpoint } from '../modules/webhooks/webhook-endpoint.entity.ts';
import { Team, TeamAuditEntry, TeamInvitation, TeamMember } from '../modules/teams/team.entity.ts';
import { migrations } from './migrations/index.ts';
import { catalogueVersionSubscriber } from '../modules/catalogue/catalogue-version.ts';
import type { Logger } from '../lib/logger.ts';
import type { DatabasePoolConfig } from '../config.ts';
import type pg from 'pg';
import { boundConnectionWait } from './bounded-pool.ts';
import { TrustedPublisher } from '../modules/trusted-publishing/trusted-publisher.entity.ts';

export const entities = [
  Developer,
  ApiKey,
  Admin,
  AdminSessionRecord,
  AdminSignInFailure,
  AuditEntry,
  OAuthClient,
  App,
  AppTransition,
  AppRevision,
  Install,
  AppStats,
  AppDailyStats,
  Asset,
  AssetCheck,
  ReviewClaim,
  Review,
  ReviewReply,
  WebhookEndpoint,
  WebhookEvent,
  WebhookDelivery,
  Email,
  TrustedPublisher,
  Team,
  TeamMember,
  TeamInvitation,
  TeamAuditEntry,
];

/** How long opening a connection may take before the database counts as unreachable (503 UNAVAILABLE "within 2 s"). */
export const CONNECT_TIMEOUT_MS = 1500;

/** The pool's size and bounds, as the configuration states them (their defaults live there, once). */
export type PoolOptions = Pick<DatabasePoolConfig, 'poolMax' | 'connectionWaitMs' | 'statementTimeoutMs'>;

export function ormOptions(databaseUrl: string, logger: Logger | undefined, pool: PoolOptions): Options {
  const { poolMax, connectionWaitMs, statementTimeoutMs } = pool;
  return {
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    subscribers: [catalogueVersionSubscriber],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: poolMax, idleTimeoutMillis: 30_000 },
    driverOptions: {
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      statement_timeout: statementTimeoutMs,
      onPoolCreated: (pool: pg.Pool) => {
        // An idle connection the server dropped (a restart, pg_terminate_backend) is discarded by the
        // pool, which then emits 'error': without a listener that would end the process.
        pool.on('error', (error) => logger?.warn('database pool connection error', { error: error.message }));
        boundConnectionWait(pool, poolMax, connectionWaitMs);
      },
    },
    // Every request forks its own EntityManager explicitly; touching the global one is a bug.
    allowGlobalContext: false,
    debug: false,
    ...(logger ? { logger: (message: string) => logger.debug(message) } : {}),
  };
}

export function createOrm(databaseUrl: string, logger: Logger | undefined, pool: PoolOptions): Promise<MikroORM> {
  assertRawFragmentRegistry();
  return MikroORM.init(ormOptions(databaseUrl, logger, pool));
}
