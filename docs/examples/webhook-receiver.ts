// A receiver for App Marketplace webhooks. Run it with:
//   WEBHOOK_SECRET=whsec_… PORT=8080 bun docs/examples/webhook-receiver.ts
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export interface MarketplaceEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, any>;
}

export interface ReceiverOptions {
  /** The endpoint's signing secret, `whsec_…`, as registration or rotation returned it. */
  secret: string;
  onEvent: (event: MarketplaceEvent) => void | Promise<void>;
  /** Ids of events already handled. Keep them in your database in production. */
  handled?: Set<string>;
}

export function createReceiver({ secret, onEvent, handled = new Set() }: ReceiverOptions) {
  const webhook = new Webhook(secret);
  return async (request: Request): Promise<Response> => {
    if (request.method !== 'POST') return new Response('POST only', { status: 405 });
    // Verify the raw body as it arrived: JSON parsed and serialised again may differ by a byte.
    const body = await request.text();
    let event: MarketplaceEvent;
    try {
      // Checks webhook-signature against webhook-id, webhook-timestamp (within 5 minutes) and the body.
      event = webhook.verify(body, Object.fromEntries(request.headers)) as MarketplaceEvent;
    } catch (error) {
      if (error instanceof WebhookVerificationError) return new Response('invalid signature', { status: 401 });
      throw error;
    }
    // A retry or a redelivery carries the same id: handle each event once.
    if (!handled.has(event.id)) {
      await onEvent(event);
      handled.add(event.id);
    }
    // Any 2xx within 10 seconds counts as delivered; anything else is retried.
    return new Response(null, { status: 204 });
  };
}

if (import.meta.main) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error('Set WEBHOOK_SECRET to the whsec_… secret of your endpoint');
  const server = Bun.serve({
    port: Number(process.env.PORT ?? 8080),
    fetch: createReceiver({
      secret,
      onEvent: (event) => console.log(JSON.stringify({ type: event.type, id: event.id, appId: event.data.id ?? null })),
    }),
  });
  console.log(`listening on ${server.url}`);
}
