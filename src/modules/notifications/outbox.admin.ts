import { Elysia } from 'elysia';
import { listQuery, oneOf } from '../console/console-lists.ts';
import { outboxMessagePage, outboxPage } from '../../../views/admin/outbox.ts';
import type { ConsoleKit } from '../console/console-plugin.ts';
import { listOutbox, outboxMessage, TRANSPORTS } from './outbox.service.ts';

/**
 * Console: the outbox. A message's HTML is shown only inside a sandboxed iframe, from a route of
 * its own whose CSP allows the e-mail's inline styles but no script, no fetch and no form, and
 * lets only this site frame it.
 */

const PREVIEW_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export function outboxAdmin(kit: ConsoleKit) {
  const messageId = (raw: string | undefined) => decodeURIComponent(raw ?? '').slice(0, 300);
  return new Elysia()
    .use(kit.plugin)
    .get(
      '/admin/jobs/outbox',
      kit.page(async (c) => {
        const query = listQuery(c.query);
        const transport = oneOf(c.query.transport, TRANSPORTS);
        const list = await listOutbox(c.em, { ...query, transport });
        return {
          title: 'Outbox',
          body: outboxPage({
            rows: list.data,
            query: { q: query.q ?? undefined, transport: transport ?? undefined },
            paging: { page: query.page, totalPages: list.totalPages, total: list.total },
          }),
        };
      }),
      { capability: 'jobs' },
    )
    .get(
      '/admin/jobs/outbox/:messageId',
      kit.page(async (c) => {
        const mail = await outboxMessage(c.em, messageId(c.params.messageId));
        return { title: mail.subject, back: { href: '/admin/jobs/outbox', label: 'Outbox' }, body: outboxMessagePage(mail) };
      }),
      { capability: 'jobs' },
    )
    .get(
      '/admin/jobs/outbox/:messageId/preview',
      kit.page(async (c) => new Response((await outboxMessage(c.em, messageId(c.params.messageId))).html, { headers: PREVIEW_HEADERS })),
      { capability: 'jobs' },
    );
}
