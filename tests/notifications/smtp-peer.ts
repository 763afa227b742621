import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { MESSAGE_ID_HEADER } from '../../src/modules/notifications/mailer.ts';

/** A message as the SMTP peer accepted it, with its MIME parts decoded. */
export interface ReceivedMail {
  to: string[];
  from: string;
  messageId: string;
  subject: string;
  html: string;
  text: string;
}

export interface SmtpPeer {
  url: string;
  received: ReceivedMail[];
  /** Refuse the next `count` messages to `address` with a temporary 451. */
  refuseNext(address: string, count: number): void;
  refusals(address: string): number;
  stop(): Promise<void>;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`), as nodemailer writes non-trivial subjects. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

function header(raw: string, name: string): string {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  return decodeWords(new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1] ?? '');
}

function part(raw: string, contentType: string): string {
  const start = raw.indexOf(`Content-Type: ${contentType}`);
  if (start < 0) return '';
  const bodyStart = raw.indexOf('\r\n\r\n', start) + 4;
  const headers = raw.slice(start, bodyStart);
  const body = raw.slice(bodyStart, raw.indexOf('\r\n--', bodyStart));
  if (/quoted-printable/i.test(headers)) return decodeQuotedPrintable(body);
  if (/base64/i.test(headers)) return Buffer.from(body, 'base64').toString('utf8');
  return body;
}

/** A real SMTP server on 127.0.0.1 (no TLS, no auth) recording what it accepts. */
export async function startSmtpPeer(): Promise<SmtpPeer> {
  const received: ReceivedMail[] = [];
  const refuse = new Map<string, number>();
  const refused = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        const pending = to.find((address) => (refuse.get(address) ?? 0) > 0);
        if (pending) {
          refuse.set(pending, refuse.get(pending)! - 1);
          refused.set(pending, (refused.get(pending) ?? 0) + 1);
          return callback(Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 }));
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        received.push({
          to,
          from: header(raw, 'From'),
          messageId: header(raw, MESSAGE_ID_HEADER),
          subject: header(raw, 'Subject'),
          html: part(raw, 'text/html'),
          text: part(raw, 'text/plain'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = (server.server.address() as AddressInfo);
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuseNext: (address, count) => refuse.set(address, count),
    refusals: (address) => refused.get(address) ?? 0,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
