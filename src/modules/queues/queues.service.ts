import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { ApiError, notFound } from '../../http/problem.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { QueueHealth, DeadJob } from '../../../views/admin/jobs.ts';
export type { QueueHealth, DeadJob } from '../../../views/admin/jobs.ts';
// Raw SQL here reads pg-boss's own tables (D106), which the service does not own and maps no entity to.

/**
 * Queue health as administrators see it, read from pg-boss's own tables: how many jobs wait, run
 * and failed per queue, since when the oldest has waited, and the dead letters with their last
 * error. The list of queues comes from the job registry (passed in by the app), so a queue added
 * there appears here without change.
 */
export interface QueueRegistry {
  /** pg-boss's schema. */
  schema: string;
  queues: { name: string; deadLetter: string | null }[];
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;
/** A list of named parameters, one per value (a literal list, so the planner prunes pg-boss's per-queue partitions). */
const inList = (prefix: string, values: readonly unknown[]) => ({
  sql: values.map((_, i) => `:${prefix}${i}`).join(', '),
  params: Object.fromEntries(values.map((value, i) => [`${prefix}${i}`, value])),
});

function jobTable(registry: QueueRegistry): string {
  if (!SCHEMA_NAME.test(registry.schema)) throw new Error(`unexpected pg-boss schema name ${registry.schema}`);
  return `${registry.schema}.job`;
}

export async function queueHealth(em: EntityManager, registry: QueueRegistry): Promise<QueueHealth[]> {
  const names = registry.queues.flatMap((q) => (q.deadLetter ? [q.name, q.deadLetter] : [q.name]));
  // Live states only, which pg-boss indexes per queue; completed jobs are never counted.
  const listed = inList('name', names);
  const rows = await executeNamed<{ name: string; state: string; count: number; oldest: string | null }>(
    em,
    `select name, state::text as state, count(*)::int as count, min(created_on) as oldest
     from ${jobTable(registry)}
     where name in (${listed.sql}) and state in ('created', 'retry', 'active', 'failed')
     group by name, state`,
    listed.params,
  );
  const count = (name: string, state: string) => rows.find((r) => r.name === name && r.state === state)?.count ?? 0;
  return registry.queues.map((queue) => {
    const oldest = rows.find((r) => r.name === queue.name && r.state === 'created')?.oldest;
    return {
      name: queue.name,
      deadLetter: queue.deadLetter,
      waiting: count(queue.name, 'created'),
      retrying: count(queue.name, 'retry'),
      active: count(queue.name, 'active'),
      failed: count(queue.name, 'failed'),
      deadLetters: queue.deadLetter ? count(queue.deadLetter, 'created') + count(queue.deadLetter, 'retry') : 0,
      oldestWaitingSince: oldest ? new Date(oldest) : null,
    };
  });
}

function errorText(output: unknown): string {
  if (output && typeof output === 'object' && 'message' in output) return String((output as { message: unknown }).message);
  return output === null || output === undefined ? '' : JSON.stringify(output);
}

/** The dead letters of every queue, newest first (at most `limit`), or the one named by `id`. */
export async function listDeadJobs(em: EntityManager, registry: QueueRegistry, options: { limit?: number; id?: string } = {}): Promise<DeadJob[]> {
  const deadLetters = registry.queues.flatMap((q) => (q.deadLetter ? [q.deadLetter] : []));
  if (deadLetters.length === 0) return [];
  const listed = inList('deadLetter', deadLetters);
  const rows = await executeNamed<{
    id: string;
    name: string;
    source_name: string | null;
    data: unknown;
    output: unknown;
    source_retry_count: number | null;
    created_on: string;
  }>(
    em,
    `select id, name, source_name, data, coalesce(source_output, output) as output, source_retry_count, created_on from ${jobTable(registry)}
     where name in (${listed.sql}) and state in ('created', 'retry') ${options.id ? 'and id = :id' : ''}
     order by created_on desc limit :limit`,
    { ...listed.params, ...(options.id ? { id: options.id } : {}), limit: options.limit ?? 50 },
  );
  return rows.map((row) => ({
    id: row.id,
    deadLetter: row.name,
    queue: row.source_name ?? registry.queues.find((q) => q.deadLetter === row.name)?.name ?? row.name,
    data: row.data,
    error: errorText(row.output),
    retries: row.source_retry_count ?? 0,
    diedAt: new Date(row.created_on),
  }));
}

/**
 * "Retry": moves one dead job back to the queue it came from, once (it leaves the dead-letter
 * queue in the same transaction, so a second click finds nothing), and audits who did it.
 */
export async function retryDeadJob(
  deps: { em: EntityManager; jobs: JobQueue },
  registry: QueueRegistry,
  deadLetter: string,
  jobId: string,
  actor: Actor,
): Promise<DeadJob> {
  const queue = registry.queues.find((q) => q.deadLetter === deadLetter);
  if (!queue) throw notFound('Dead-letter queue');
  return deps.em.transactional(async (tx) => {
    const [job] = await listDeadJobs(tx, { ...registry, queues: [queue] }, { id: jobId });
    if (!job) throw new ApiError(409, 'CONFLICT', 'This job is no longer dead-lettered (already retried, or dropped by retention)');
    if (!(await deps.jobs.redrive(tx, deadLetter, jobId))) {
      throw new ApiError(409, 'CONFLICT', 'The job could not be re-enqueued (an identical job is already waiting)');
    }
    recordAudit(tx, actor, {
      action: 'job.retry',
      subjectType: 'job',
      subjectId: jobId,
      before: { queue: deadLetter, error: job.error },
      after: { queue: job.queue },
    });
    return job;
  });
}
