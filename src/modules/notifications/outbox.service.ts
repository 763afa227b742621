import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, totalPages, type ListQuery } from '../../http/console-lists.ts';

/** The e-mails the service sent (SMTP) or kept (the dev outbox), newest first, and one message whole. */
export interface OutboxEntry {
  messageId: string;
  kind: string;
  to: string;
  subject: string;
  transport: 'smtp' | 'outbox';
  sentAt: Date;
}

export async function listOutbox(em: EntityManager, filter: ListQuery): Promise<{ data: OutboxEntry[]; total: number; totalPages: number }> {
  const params: unknown[] = [];
  let clause = '';
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    clause = 'where to_address ilike ? or subject ilike ? or message_id ilike ?';
    params.push(pattern, pattern, pattern);
  }
  const [rows, counted] = await Promise.all([
    em.execute<{ message_id: string; kind: string; to_address: string; subject: string; transport: 'smtp' | 'outbox'; sent_at: string }[]>(
      `select message_id, kind, to_address, subject, transport, sent_at from emails ${clause} order by sent_at desc, message_id limit ? offset ?`,
      [...params, filter.limit, filter.offset],
    ),
    em.execute<{ total: number }[]>(`select count(*)::int as total from emails ${clause}`, params),
  ]);
  const total = counted[0]?.total ?? 0;
  return {
    data: rows.map((row) => ({ messageId: row.message_id, kind: row.kind, to: row.to_address, subject: row.subject, transport: row.transport, sentAt: new Date(row.sent_at) })),
    total,
    totalPages: totalPages(total, filter.limit),
  };
}

export async function outboxMessage(em: EntityManager, messageId: string): Promise<OutboxEntry & { html: string; text: string }> {
  const [row] = await em.execute<{ message_id: string; kind: string; to_address: string; subject: string; transport: 'smtp' | 'outbox'; sent_at: string; html: string; text_body: string }[]>(
    'select message_id, kind, to_address, subject, transport, sent_at, html, text_body from emails where message_id = ?',
    [messageId],
  );
  if (!row) throw notFound('Message');
  return { messageId: row.message_id, kind: row.kind, to: row.to_address, subject: row.subject, transport: row.transport, sentAt: new Date(row.sent_at), html: row.html, text: row.text_body };
}
