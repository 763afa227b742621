import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { notFound } from '../../http/problem.ts';
import { containsPattern, listPageOf, type ListPage, type ListQuery } from '../console/console-lists.ts';
import { Email, EMAIL_TRANSPORTS } from './email.entity.ts';
import type { OutboxEntry } from '../../../views/admin/outbox.ts';
export type { OutboxEntry } from '../../../views/admin/outbox.ts';

export const TRANSPORTS = EMAIL_TRANSPORTS;

const toEntry = (email: Pick<Email, 'messageId' | 'kind' | 'toAddress' | 'subject' | 'transport' | 'sentAt'>): OutboxEntry => ({
  messageId: email.messageId,
  kind: email.kind,
  to: email.toAddress,
  subject: email.subject,
  transport: email.transport,
  sentAt: email.sentAt,
});

export async function listOutbox(
  em: EntityManager,
  filter: ListQuery & { transport: (typeof TRANSPORTS)[number] | null },
): Promise<ListPage<OutboxEntry>> {
  const pattern = filter.q && containsPattern(filter.q);
  const where: FilterQuery<Email> = {
    ...(filter.transport && { transport: filter.transport }),
    ...(pattern && { $or: [{ toAddress: { $ilike: pattern } }, { subject: { $ilike: pattern } }, { messageId: { $ilike: pattern } }] }),
  };
  // The bodies stay unread: a list shows only the headers.
  const [emails, total] = await em.findAndCount(Email, where, {
    exclude: ['html', 'textBody'],
    orderBy: { sentAt: 'desc', messageId: 'asc' },
    limit: filter.limit,
    offset: filter.offset,
    disableIdentityMap: true,
  });
  return listPageOf(emails.map(toEntry), total, filter);
}

export async function outboxMessage(em: EntityManager, messageId: string): Promise<OutboxEntry & { html: string; text: string }> {
  const email = await em.findOne(Email, { messageId }, { disableIdentityMap: true });
  if (!email) throw notFound('Message');
  return { ...toEntry(email), html: email.html, text: email.textBody };
}
