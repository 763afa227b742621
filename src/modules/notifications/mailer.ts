import nodemailer from 'nodemailer';
import type { MailConfig } from '../../config.ts';

export interface OutgoingMail {
  messageId: string;
  to: string;
  subject: string;
  html: string;
  text: string;
}

export type MailTransport = 'smtp' | 'outbox';

/** Delivers a rendered message; throws when it was not accepted, so the job retries. */
export interface Mailer {
  transport: MailTransport;
  deliver(mail: OutgoingMail): Promise<void>;
}

/** Our message id travels in its own header: it is not a valid RFC 5322 Message-ID. */
export const MESSAGE_ID_HEADER = 'X-Marketplace-Message-Id';

function smtpMailer(smtpUrl: string, from: string): Mailer {
  // Well inside the job's expiry, so a hung server fails the attempt and the retry policy takes over.
  const transporter = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  return {
    transport: 'smtp',
    async deliver(mail) {
      await transporter.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        html: mail.html,
        text: mail.text,
        headers: { [MESSAGE_ID_HEADER]: mail.messageId },
      });
    },
  };
}

/** Without SMTP the `emails` row the job writes is the message: nothing leaves the process. */
const outboxMailer: Mailer = { transport: 'outbox', async deliver() {} };

export function createMailer(config: MailConfig): Mailer {
  return config.smtpUrl ? smtpMailer(config.smtpUrl, config.from) : outboxMailer;
}
