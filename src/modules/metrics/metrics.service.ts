import { Gauge, Registry } from 'prom-client';
import type { AppContext } from '../../app-context.ts';
import { metricsRegistry } from '../../lib/metrics.ts';
import { queueHealth, type QueueRegistry } from '../queues/queues.service.ts';
import { readPoolStats } from './pool-stats.ts';

/**
 * One scrape: the process's counters (`src/lib/metrics.ts`) plus gauges read now — the ORM's pool
 * and, from pg-boss's table, every queue's depth, oldest waiting job and dead letters (the same
 * figures as the console's Jobs page, and the same from whichever process is scraped). The gauges
 * live in a registry of their own per scrape, so they describe the service that was asked.
 */
const QUEUE_STATES = ['waiting', 'retrying', 'active', 'failed'] as const;

export async function renderMetrics(ctx: AppContext, registry: QueueRegistry): Promise<{ contentType: string; body: string }> {
  const scrape = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers: [scrape] });

  const pool = await readPoolStats(ctx.orm);
  gauge('db_pool_connections_open', 'Connections the ORM pool holds open').set(pool.open);
  gauge('db_pool_connections_idle', 'Open connections not in use').set(pool.idle);
  gauge('db_pool_connections_max', 'The most connections the pool opens').set(pool.max);
  gauge('db_pool_waiting_requests', 'Queries waiting for a connection').set(pool.waiting);

  const up = gauge('job_queue_metrics_up', 'Whether the queue figures below could be read from PostgreSQL (0: the database is unreachable)');
  try {
    const health = await queueHealth(ctx.orm.em.fork(), registry);
    const jobs = gauge('job_queue_jobs', 'Jobs in each queue by state (waiting, retrying after a failure, active, failed for good)', [
      'queue',
      'state',
    ]);
    const oldest = gauge('job_queue_oldest_waiting_age_seconds', 'Age of the oldest job waiting in each queue (0 when none waits)', ['queue']);
    const dead = gauge('job_dead_letters', "Jobs waiting in each queue's dead-letter queue for an operator", ['queue']);
    const now = Date.now();
    for (const queue of health) {
      for (const state of QUEUE_STATES) jobs.set({ queue: queue.name, state }, queue[state]);
      oldest.set({ queue: queue.name }, queue.oldestWaitingSince ? Math.max(0, (now - queue.oldestWaitingSince.getTime()) / 1000) : 0);
      dead.set({ queue: queue.name }, queue.deadLetters);
    }
    up.set(1);
  } catch (error) {
    ctx.logger.warn('metrics: could not read queue health', { error: (error as Error).message });
    up.set(0);
  }

  const merged = Registry.merge([metricsRegistry, scrape]);
  return { contentType: merged.contentType, body: await merged.metrics() };
}
