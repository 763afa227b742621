import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, pageOfRows, whereOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import type { OutboxEntry } from '../../../views/admin/outbox.ts';
export type { OutboxEntry } from '../../../views/admin/outbox.ts';

export const TRANSPORTS = ['smtp', 'outbox'] as const;

export function listOutbox(em: EntityManager, filter: ListQuery & { transport: (typeof TRANSPORTS)[number] | null }): Promise<ListPage<OutboxEntry>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where = whereOf([
    filter.transport && ['transport = ?', filter.transport],
    pattern && ['to_address ilike ? or subject ilike ? or message_id ilike ?', pattern, pattern, pattern],
  ]);
  return pageOfRows(
    em,
    { select: 'message_id, kind, to_address, subject, transport, sent_at', from: 'emails', where, orderBy: 'sent_at desc, message_id' },
    filter,
    (row: { message_id: string; kind: string; to_address: string; subject: string; transport: 'smtp' | 'outbox'; sent_at: string }) => ({
      messageId: row.message_id,
      kind: row.kind,
      to: row.to_address,
      subject: row.subject,
      transport: row.transport,
      sentAt: new Date(row.sent_at),
    }),
  );
}

export async function outboxMessage(em: EntityManager, messageId: string): Promise<OutboxEntry & { html: string; text: string }> {
  const [row] = await em.execute<
    {
      message_id: string;
      kind: string;
      to_address: string;
      subject: string;
      transport: 'smtp' | 'outbox';
      sent_at: string;
      html: string;
      text_body: string;
    }[]
  >('select message_id, kind, to_address, subject, transport, sent_at, html, text_body from emails where message_id = ?', [messageId]);
  if (!row) throw notFound('Message');
  return {
    messageId: row.message_id,
    kind: row.kind,
    to: row.to_address,
    subject: row.subject,
    transport: row.transport,
    sentAt: new Date(row.sent_at),
    html: row.html,
    text: row.text_body,
  };
}
