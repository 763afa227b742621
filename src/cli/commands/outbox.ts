import { CliUsageError, runtimeOf, type CliCommand } from '../command.ts';

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
      const [mail] = await em.execute<{ to_address: string; subject: string; text_body: string }[]>(
        'select to_address, subject, text_body from emails where message_id = ?',
        [show],
      );
      if (!mail) throw new CliUsageError(`No e-mail with message id "${show}"`);
      input.print(`To: ${mail.to_address}\nSubject: ${mail.subject}\n\n${mail.text_body}`);
      return;
    }
    const raw = (input.values.limit as string | undefined) ?? '20';
    if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || Number(raw) > 500) throw new CliUsageError('--limit must be a whole number from 1 to 500');
    const rows = await em.execute<{ message_id: string; to_address: string; subject: string; transport: string; sent_at: string }[]>(
      'select message_id, to_address, subject, transport, sent_at from emails order by sent_at desc limit ?',
      [Number(raw)],
    );
    if (rows.length === 0) input.print('no e-mails yet');
    for (const row of rows) {
      input.print(`${new Date(row.sent_at).toISOString()}  ${row.transport.padEnd(6)}  ${row.to_address}  ${row.subject}  [${row.message_id}]`);
    }
  },
};
