import { Elysia } from 'elysia';
import { listQuery } from '../console/console-lists.ts';
import { auditPage } from '../../../views/admin/audit.ts';
import type { ConsoleKit } from '../console/console-plugin.ts';
import { listAdmins } from '../admin-accounts/admins.service.ts';
import { listAudit } from './audit-log.ts';

/** Console: the audit log, read-only (there is no route that changes it). */
export function auditAdmin(kit: ConsoleKit) {
  return new Elysia().use(kit.plugin).get(
    '/admin/audit',
    kit.page(async (c) => {
      const query = listQuery(c.query);
      const short = (value: string | undefined) => value?.trim().slice(0, 100) || null;
      const [list, admins] = await Promise.all([
        listAudit(c.em, { ...query, action: short(c.query.action), subjectType: short(c.query.subject), actor: short(c.query.actor) }),
        listAdmins(c.em.fork()),
      ]);
      return {
        title: 'Audit log',
        body: auditPage({
          rows: list.data,
          query: { q: query.q ?? undefined, action: c.query.action, subject: c.query.subject, actor: c.query.actor },
          paging: { page: query.page, totalPages: list.totalPages, total: list.total },
          actions: list.actions,
          subjectTypes: list.subjectTypes,
          actors: [...admins.map((admin) => admin.email), 'cli', 'system'],
        }),
      };
    }),
    { capability: 'view' },
  );
}
