import { CliUsageError, runtimeOf, type CliCommand } from '../command.ts';
import { Email } from '../../modules/notifications/email.entity.ts';

/** The dev outbox (mail kept instead of sent when SMTP_URL is unset), newest first. */
export const outbox: CliCommand = {
  name: 'mail:outbox',
  usage: 'mail:outbox [--limit N] [--show MESSAGE_ID]',
  description: 'List the e-mails the service sent or kept (newest first), or print one in full',
  options: { limit: { type: 'string' }, show: { type: 'string' } },
  needsDatabase: true,
  async run(input) {
    const em = runtimeOf(input).ctx.orm.em.fork();
    const show = input.values.show;
    if (typeof show === 'string') {
      const mail = await em.findOne(Email, { messageId: show });
      if (!mail) throw new CliUsageError(`No e-mail with message id "${show}"`);
      input.print(`To: ${mail.toAddress}\nSubject: ${mail.subject}\n\n${mail.textBody}`);
      return;
    }
    const raw = (input.values.limit as string | undefined) ?? '20';
    if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || Number(raw) > 500) throw new CliUsageError('--limit must be a whole number from 1 to 500');
    const rows = await em.find(Email, {}, { exclude: ['html', 'textBody'], orderBy: { sentAt: 'desc' }, limit: Number(raw) });
    if (rows.length === 0) input.print('no e-mails yet');
    for (const row of rows) {
      input.print(`${row.sentAt.toISOString()}  ${row.transport.padEnd(6)}  ${row.toAddress}  ${row.subject}  [${row.messageId}]`);
    }
  },
};
