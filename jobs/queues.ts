import { PgBoss, type Job, type Queue } from 'pg-boss';
import type { AppContext } from '../src/app-context.ts';
import type { Logger } from '../src/lib/logger.ts';

/**
 * Every queue the service uses, with its retry, backoff, dead-letter and singleton policy,
 * declared in this one place. Producers import the name; `jobs/worker.ts` attaches handlers.
 * Payloads carry ids only, and handlers are idempotent (delivery is at-least-once).
 */
export interface QueueDefinition<Payload extends object = object> {
  name: string;
  options: Omit<Queue, 'name'>;
  /** Jobs per fetch and how many run at once in one process. */
  work: { batchSize: number; localConcurrency: number };
  handler: (ctx: AppContext, jobs: Job<Payload>[]) => Promise<void>;
  /** Cron (UTC) for a queue that runs on a timetable; the worker roles register it. */
  schedule?: string;
}

export const PGBOSS_SCHEMA = 'pgboss';

export function defineQueue<Payload extends object>(definition: QueueDefinition<Payload>): QueueDefinition<Payload> {
  return definition;
}

export function createBoss(databaseUrl: string, logger: Logger, role: { supervise: boolean; migrate: boolean }): PgBoss {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    schema: PGBOSS_SCHEMA,
    application_name: 'marketplace-jobs',
    max: 4,
    connectionTimeoutMillis: 1500,
    // Only processes that run workers do queue maintenance and cron scheduling.
    supervise: role.supervise,
    schedule: role.supervise,
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

/** Creates every queue, and brings an existing one's options in line with its definition. */
export async function declareQueues(boss: PgBoss, queues: QueueDefinition<any>[]): Promise<void> {
  for (const queue of queues) {
    if (queue.options.deadLetter) await boss.createQueue(queue.options.deadLetter, { retentionSeconds: 14 * 86_400 });
    const options = { ...queue.options, notify: true };
    await boss.createQueue(queue.name, options);
    const { policy: _fixedAtCreation, retryDelayMax: _alsoFixed, ...updatable } = options;
    await boss.updateQueue(queue.name, updatable);
  }
}
