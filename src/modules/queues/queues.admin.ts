import { Elysia } from 'elysia';
import { idParam } from '../console/console-lists.ts';
import { deadJobRow, jobsPage, queueHealthWidget, retriedRow } from '../../../views/admin/jobs.ts';
import type { ConsoleKit } from '../console/console-plugin.ts';
import { listDeadJobs, queueHealth, retryDeadJob, type QueueRegistry } from './queues.service.ts';

/** Console: the Jobs page, the queue-health widget it shares with the dashboard, and "Retry" on a dead job. */

export function queuesAdmin(kit: ConsoleKit, registry: QueueRegistry) {
  return new Elysia()
    .use(kit.plugin)
    .get(
      '/admin/queue-health',
      kit.fragment(async (c) => queueHealthWidget(await queueHealth(c.em, registry))),
      { capability: 'view' },
    )
    .get(
      '/admin/jobs',
      kit.page(async (c) => {
        const [health, dead] = await Promise.all([queueHealth(c.em, registry), listDeadJobs(c.em.fork(), registry)]);
        return { title: 'Jobs', body: jobsPage({ health: queueHealthWidget(health), dead, form: c.forms }) };
      }),
      { capability: 'jobs' },
    )
    .post(
      '/admin/jobs/dead/:queue/:id/retry',
      kit.action({
        run: (c) => retryDeadJob(c.deps, registry, decodeURIComponent(c.params.queue ?? ''), idParam(c.params.id, 'Job'), c.actor),
        success: (_c, job) => `The ${job.queue} job is back on its queue.`,
        async fragment(c, outcome) {
          if (outcome.ok) return retriedRow(outcome.result!.id, outcome.result!.queue, outcome.message);
          const [job] = await listDeadJobs(c.em.fork(), registry, { id: idParam(c.params.id, 'Job') });
          return job ? deadJobRow(job, c.forms, outcome.message) : retriedRow(c.params.id ?? '', '', outcome.message);
        },
        redirect: () => '/admin/jobs',
      }),
      { capability: 'jobs' },
    );
}
