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
  /**
   * Hold the next message to `address` after its DATA arrived, without answering: `arrived`
   * resolves then; `release()` accepts it. A client that disconnects meanwhile has sent nothing.
   */
  stallNext(address: string): { arrived: Promise<void>; release(): void };
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
      encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
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

/** A real SMTP server on 127.0.0.1 (no TLS, no auth) recording what it accepts; `port` to start again where it was. */
export async function startSmtpPeer(port = 0): Promise<SmtpPeer & { port: number }> {
  const received: ReceivedMail[] = [];
  const refuse = new Map<string, number>();
  const refused = new Map<string, number>();
  const stalls = new Map<string, { arrived: () => void; released: Promise<void> }>();
  const closedSessions = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onClose(session) {
      closedSessions.add(session.id);
    },
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
        const stall = to.map((address) => stalls.get(address)).find(Boolean);
        if (stall) {
          for (const address of to) stalls.delete(address);
          stall.arrived();
          // A client gone before the reply never learnt of an acceptance: the message is dropped.
          return void stall.released.then(() => {
            if (closedSessions.has(session.id)) return;
            accept(raw, to);
            callback();
          });
        }
        accept(raw, to);
        callback();
      });
    },
  });
  function accept(raw: string, to: string[]) {
    received.push({
      to,
      from: header(raw, 'From'),
      messageId: header(raw, MESSAGE_ID_HEADER),
      subject: header(raw, 'Subject'),
      html: part(raw, 'text/html'),
      text: part(raw, 'text/plain'),
    });
  }
  // A client killed mid-conversation resets its connection, as a real peer sees now and then; with
  // nothing listening, smtp-server's 'error' would fail whichever test happens to be running.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${bound}`,
    port: bound,
    received,
    refuseNext: (address, count) => refuse.set(address, count),
    refusals: (address) => refused.get(address) ?? 0,
    stallNext(address) {
      let arrived!: () => void;
      let release!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      stalls.set(address, { arrived, released: new Promise<void>((resolve) => (release = resolve)) });
      return { arrived: arrival, release };
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
