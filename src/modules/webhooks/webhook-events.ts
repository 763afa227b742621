import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import { queueHandle, type JobQueue } from '../../lib/job-queue.ts';
import { App } from '../apps/app.entity.ts';
import { ApiKey } from '../api-keys/api-key.entity.ts';
import { toApiKeyView } from '../api-keys/api-keys.service.ts';
import { toOwnerView } from '../apps/owner-views.ts';
import type { WebhookEventType } from './webhooks.model.ts';
// Raw SQL here is batch work and an atomic insert (D106): one event stored once (dedupe key), fanned out to every endpoint in one statement.

/**
 * Emitting an event: called inside the transaction of the change that causes it, so a committed
 * change always has its event and a rolled-back one never does.
 *
 * Fan-out happens here, at enqueue time, not in a first job: the developer has at most 10
 * endpoints, so it costs a handful of inserts, and it pins the recipients to the endpoints that
 * were subscribed and enabled when the event happened. Each delivery row gets its own job, so
 * one slow or failing endpoint never delays another. A developer with no matching endpoint costs
 * one indexed read and nothing is stored.
 */

export type EventType = WebhookEventType | 'ping';

export interface WebhookDeliveryJob {
  deliveryId: string;
}

export const webhookDeliveryJobs = queueHandle<WebhookDeliveryJob>('webhooks.deliver');
export const WEBHOOK_DELIVERY_QUEUE = webhookDeliveryJobs.name;

/**
 * Enqueues an attempt at a delivery in the pg-boss group of the endpoint's owner: the delivery
 * queue's `groupConcurrency` bounds how many workers one developer's receivers can hold at once
 * (`jobs/webhooks.ts`), so a slow receiver fed many events delays only its own developer.
 */
export const enqueueDelivery = (jobs: JobQueue, tx: EntityManager, deliveryId: string, developerId: string, options: { startAfter?: number } = {}) =>
  jobs.send(tx, webhookDeliveryJobs, { deliveryId }, { ...options, group: { id: developerId } });

export interface NewEvent {
  developerId: string;
  /** The team whose endpoints receive the event (a team app's); absent: the developer's personal endpoints. */
  teamId?: string | null;
  type: EventType;
  /** Built only when some endpoint will receive the event. */
  data: () => Promise<object> | object;
  /** Events a periodic scan may find again carry a key, so they are emitted once. */
  dedupeKey?: string;
}

/** Stores the event with one pending delivery per endpoint, and enqueues their first attempts. */
export async function createDeliveries(
  jobs: JobQueue,
  tx: EntityManager,
  event: NewEvent,
  endpointIds: string[],
  options: { retries: boolean },
): Promise<{ eventId: string; deliveryIds: string[] } | null> {
  if (endpointIds.length === 0) return null;
  const id = Bun.randomUUIDv7();
  const createdAt = new Date();
  const body = JSON.stringify({ id, type: event.type, createdAt: createdAt.toISOString(), data: await event.data() });
  const stored = await executeNamed<{ id: string }>(
    tx,
    `insert into webhook_events (id, developer_id, type, body, dedupe_key, created_at) values (:id, :developerId, :type, :body, :dedupeKey, :createdAt)
     on conflict (dedupe_key) do nothing returning id`,
    { id, developerId: event.developerId, type: event.type, body, dedupeKey: event.dedupeKey ?? null, createdAt },
  );
  if (stored.length === 0) return null;
  const deliveries = await executeNamed<{ id: string }>(
    tx,
    `insert into webhook_deliveries (id, endpoint_id, event_id, status, attempts, retries, next_attempt_at, created_at, updated_at)
     values ${endpointIds.map((_, i) => `(:id${i}, :endpointId${i}, :eventId, 'pending', 0, :retries, now(), now(), now())`).join(', ')}
     returning id`,
    {
      eventId: id,
      retries: options.retries,
      ...Object.fromEntries(
        endpointIds.flatMap((endpointId, i) => [
          [`id${i}`, Bun.randomUUIDv7()],
          [`endpointId${i}`, endpointId],
        ]),
      ),
    },
  );
  for (const delivery of deliveries) await enqueueDelivery(jobs, tx, delivery.id, event.developerId);
  return { eventId: id, deliveryIds: deliveries.map((delivery) => delivery.id) };
}

/** Emits an event to every enabled endpoint subscribed to its type: the team's for a team event, else the developer's personal ones. */
export async function emitEvent(jobs: JobQueue, tx: EntityManager, event: NewEvent & { type: WebhookEventType }): Promise<void> {
  // KEY SHARE: an endpoint being deleted right now is waited for and skipped, never a foreign-key error in the caller's change.
  const endpoints = await executeNamed<{ id: string }>(
    tx,
    event.teamId
      ? 'select id from webhook_endpoints where team_id = :ownerId and enabled and :type = any (events) order by id for key share'
      : 'select id from webhook_endpoints where developer_id = :ownerId and team_id is null and enabled and :type = any (events) order by id for key share',
    { ownerId: event.teamId ?? event.developerId, type: event.type },
  );
  await createDeliveries(
    jobs,
    tx,
    event,
    endpoints.map((endpoint) => endpoint.id),
    { retries: true },
  );
}

export type AppEventType = Extract<WebhookEventType, `app.${string}` | `revision.${string}` | `review.${string}`>;

type Extra = Record<string, unknown>;

/**
 * Emits an event about an app to its developer's endpoints; `data` is the app as its owner sees it
 * (after the change), plus `extra` (the decision's reason, the revision, the review…), which may
 * be a function so that it is read only when some endpoint will receive the event.
 * Admin support edits (`app.edited_by_support`) call this from their own service.
 */
export async function emitAppEvent(
  jobs: JobQueue,
  tx: EntityManager,
  type: AppEventType,
  appId: string,
  extra: Extra | (() => Promise<Extra>) = {},
): Promise<void> {
  // The change being made is written first, so the view (and its `updatedAt`) shows it.
  await tx.flush();
  const app = await tx.findOneOrFail(App, appId);
  await emitEvent(jobs, tx, {
    developerId: app.developer.id,
    teamId: app.teamId ?? null,
    type,
    data: async () => ({ ...(await toOwnerView(tx, app)), ...(typeof extra === 'function' ? await extra() : extra) }),
  });
}

/** `api_key.expiring`: once per key, however often the hourly scan finds it. */
export async function emitApiKeyExpiring(jobs: JobQueue, tx: EntityManager, apiKeyId: string, developerId: string): Promise<void> {
  await emitEvent(jobs, tx, {
    developerId,
    type: 'api_key.expiring',
    dedupeKey: `api_key.expiring:${apiKeyId}`,
    data: async () => ({ apiKey: toApiKeyView(await tx.findOneOrFail(ApiKey, apiKeyId)) }),
  });
}
