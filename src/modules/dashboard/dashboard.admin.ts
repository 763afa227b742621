import { Elysia } from 'elysia';
import { dashboardPage } from '../../../views/admin/dashboard.ts';
import { queueHealthWidget } from '../../../views/admin/jobs.ts';
import type { ConsoleKit } from '../console/console-plugin.ts';
import { queueHealth, type QueueRegistry } from '../queues/queues.service.ts';
import { dashboardFigures } from './dashboard.service.ts';

/** Console: the front page. */
export function dashboardAdmin(kit: ConsoleKit, registry: QueueRegistry) {
  return new Elysia().use(kit.plugin).get(
    '/admin',
    kit.page(async (c) => {
      const [figures, health] = await Promise.all([dashboardFigures(c.em), queueHealth(c.em.fork(), registry)]);
      return { title: 'Dashboard', body: dashboardPage(figures, queueHealthWidget(health)) };
    }),
    { capability: 'view' },
  );
}
