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

/**
 * The longest one send may take, whatever the server does (a trickle resets nodemailer's idle
 * timeouts). The mail job's expiry is well past it, so an expired attempt is never still sending.
 */
export const SEND_TIMEOUT_SECONDS = 30;

function within<T>(work: Promise<T>, seconds: number): Promise<T> {
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`SMTP send did not finish within ${seconds} s`)), seconds * 1000);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function smtpMailer(smtpUrl: string, from: string): Mailer {
  // Well inside the job's expiry, so a hung server fails the attempt and the retry policy takes over.
  const transporter = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return {
    transport: 'smtp',
    async deliver(mail) {
      const sending = transporter.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        html: mail.html,
        text: mail.text,
        headers: { [MESSAGE_ID_HEADER]: mail.messageId },
      });
      await within(sending, SEND_TIMEOUT_SECONDS);
    },
  };
}

/** Without SMTP the `emails` row the job writes is the message: nothing leaves the process. */
const outboxMailer: Mailer = { transport: 'outbox', async deliver() {} };

export function createMailer(config: MailConfig): Mailer {
  return config.smtpUrl ? smtpMailer(config.smtpUrl, config.from) : outboxMailer;
}
