import { PgBoss, type Job, type Queue, type QueuePolicy } from 'pg-boss';
import type { AppContext } from '../src/app-context.ts';
import type { RetentionConfig } from '../src/config.ts';
import type { Logger } from '../src/lib/logger.ts';
import type { QueueHandle } from '../src/lib/job-queue.ts';
import { migrateQueuePolicy } from './queue-policy.ts';

/**
 * Every queue the service uses, with its retry, backoff, dead-letter and singleton policy,
 * declared in this one place. Producers import the name; `jobs/worker.ts` attaches handlers.
 * Payloads carry ids only, and handlers are idempotent (delivery is at-least-once).
 */
export type QueueOptions = Omit<Queue, 'name' | 'partition' | 'deadLetter' | 'notify' | 'deleteAfterSeconds' | 'retentionSeconds'>;

export interface QueueDefinition<Payload extends object = object> {
  name: string;
  options: QueueOptions;
  /**
   * Jobs per fetch and how many run at once in one process; `pollingIntervalSeconds` for deferred
   * jobs and retries (default 2); `groupConcurrency`: how many jobs of one group (the `group` a job
   * is sent with) may be active at once across every process, so one tenant cannot hold every worker.
   */
  work: { batchSize: number; localConcurrency: number; pollingIntervalSeconds?: number; groupConcurrency?: number };
  handler: (ctx: AppContext, jobs: Job<Payload>[]) => Promise<void>;
  /** Cron (UTC) for a queue that runs on a timetable; the worker roles register it. */
  schedule?: string;
}

export const PGBOSS_SCHEMA = 'pgboss';

/** Every queue has one: after its last retry a job is copied there, where the console's Jobs page finds it. */
export const deadLetterOf = (queue: string) => `${queue}.dead`;

/** A queue's policy and handler; given the queue's handle, its name and payload type come from there. */
export function defineQueue<Payload extends object>(
  definition: QueueDefinition<Payload> | (Omit<QueueDefinition<Payload>, 'name'> & { queue: QueueHandle<Payload> }),
): QueueDefinition<Payload> {
  if (!('queue' in definition)) return definition;
  const { queue, ...rest } = definition;
  return { ...rest, name: queue.name };
}

/**
 * pg-boss's own defaults, written out so that an option removed from a definition goes back to
 * its default on an existing queue instead of keeping whatever it was once set to.
 */
const PGBOSS_DEFAULTS = {
  policy: 'standard' as QueuePolicy,
  retryLimit: 2,
  retryDelay: 0,
  retryBackoff: false,
  retryDelayMax: null,
  expireInSeconds: 900,
  heartbeatSeconds: null,
  warningQueueSize: 0,
};

export function createBoss(
  databaseUrl: string,
  logger: Logger,
  /** `superviseSeconds`: how often a worker process expires jobs whose process died, and counts queues (JOBS_SUPERVISE_SECONDS; pg-boss's default is 60 s). */
  role: { supervise: boolean; migrate: boolean; poolMax?: number; superviseSeconds?: number },
): PgBoss {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: PGBOSS_SCHEMA,
    application_name: 'marketplace-jobs',
    max: role.poolMax ?? 4,
    connectionTimeoutMillis: 1500,
    // Only processes that run workers do queue maintenance and cron scheduling (pg-boss claims
    // each pass, so one process does it however many run).
    supervise: role.supervise,
    schedule: role.supervise,
    superviseIntervalSeconds: role.superviseSeconds ?? 10,
    monitorIntervalSeconds: role.superviseSeconds ?? 10,
    // Production processes never change schemas; `bun run db:migrate` installs pg-boss's too.
    migrate: role.migrate,
    createSchema: role.migrate,
    // Workers wake on NOTIFY when a job is committed (milliseconds), instead of waiting for a poll.
    useListenNotify: true,
  });
  // An unhandled 'error' event would crash the process; pg-boss recovers on its own once PostgreSQL is back.
  boss.on('error', (error) => logger.error('pg-boss error', { error }));
  return boss;
}

/**
 * Creates every queue and its dead-letter queue, and brings existing ones in line with their
 * definitions: every option pg-boss lets `updateQueue` change (retries, backoff and its cap,
 * expiry, heartbeat, dead letter, retention) is written on every start, and a changed policy,
 * which pg-boss cannot update, is migrated (`queue-policy.ts`).
 */
export async function declareQueues(boss: PgBoss, queues: QueueDefinition<any>[], retention: RetentionConfig, logger: Logger): Promise<void> {
  // Each queue's steps in order (its dead-letter queue first), the queues side by side: one after another, a start-up waited ~80 round trips.
  await Promise.all(
    queues.map(async (queue) => {
      const deadLetter = deadLetterOf(queue.name);
      // Nothing works a dead-letter queue: its jobs wait there (retentionSeconds) for an operator.
      const deadOptions = { retentionSeconds: retention.deadLetters, deleteAfterSeconds: retention.jobs };
      await boss.createQueue(deadLetter, deadOptions);
      await boss.updateQueue(deadLetter, deadOptions);

      const { policy, ...options } = { ...PGBOSS_DEFAULTS, ...queue.options };
      const updatable = { ...options, deadLetter, notify: true, deleteAfterSeconds: retention.jobs, retentionSeconds: 14 * 86_400 };
      // createQueue takes no nulls (absent means unset); updateQueue needs them to clear a setting.
      const creatable = Object.fromEntries(Object.entries(updatable).filter(([, value]) => value !== null));
      await boss.createQueue(queue.name, { ...creatable, policy });
      const previous = await migrateQueuePolicy(boss, PGBOSS_SCHEMA, queue.name, policy);
      if (previous) logger.info('queue policy migrated', { queue: queue.name, from: previous, to: policy });
      await boss.updateQueue(queue.name, updatable);
    }),
  );
}
