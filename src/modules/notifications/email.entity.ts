import { defineEntity, p } from '@mikro-orm/postgresql';

export const EMAIL_TRANSPORTS = ['smtp', 'outbox'] as const;

/** A message as it was sent (SMTP) or kept (the outbox); its message id names one event, so it exists once. */
const EmailSchema = defineEntity({
  name: 'Email',
  tableName: 'emails',
  properties: {
    messageId: p.string().primary(),
    kind: p.string(),
    toAddress: p.string(),
    subject: p.string(),
    html: p.text(),
    textBody: p.text(),
    transport: p.enum(EMAIL_TRANSPORTS),
    appId: p.uuid().nullable(),
    developerId: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    sentAt: p.datetime(),
  },
});

export class Email extends EmailSchema.class {}
EmailSchema.setClass(Email);
