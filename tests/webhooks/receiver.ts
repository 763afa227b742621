import type { Server } from 'bun';
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A webhook receiver on 127.0.0.1 that records every request and answers as the test says. */
export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: any;
  at: number;
}

export interface Receiver {
  url: (path?: string) => string;
  received: ReceivedWebhook[];
  /** Requests to `path` so far. */
  at(path: string): ReceivedWebhook[];
  /** How the next requests to a path are answered, in order; then 200. */
  answer(path: string, ...responses: (number | (() => Response | Promise<Response>))[]): void;
  stop(): Promise<void>;
}

export function startReceiver(): Receiver {
  const received: ReceivedWebhook[] = [];
  const scripted = new Map<string, (number | (() => Response | Promise<Response>))[]>();
  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const body = await request.text();
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        // Recorded as text.
      }
      received.push({ path, headers: Object.fromEntries(request.headers), body, json, at: Date.now() });
      const next = scripted.get(path)?.shift();
      if (typeof next === 'function') return next();
      return new Response(null, { status: next ?? 200 });
    },
  });
  return {
    url: (path = '/hook') => `http://127.0.0.1:${server.port}${path}`,
    received,
    at: (path) => received.filter((request) => request.path === path),
    answer: (path, ...responses) => scripted.set(path, [...(scripted.get(path) ?? []), ...responses]),
    stop: () => server.stop(true),
  };
}

/**
 * Standard Webhooks verification written from the specification, independent of the service's
 * signer: HMAC-SHA256 over `${id}.${timestamp}.${body}` keyed with the base64-decoded part of
 * the `whsec_` secret; the header holds space-separated `v1,<base64>` signatures.
 */
export function signatureMatches(secret: string, request: Pick<ReceivedWebhook, 'headers' | 'body'>): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest();
  return (request.headers['webhook-signature'] ?? '').split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
