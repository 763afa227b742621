import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import type { EncryptionKey } from '../../config.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { recordWebhookFailure } from '../../lib/metrics.ts';
import { safeFetch, SafeFetchError } from '../../lib/safe-fetch.ts';
import { notifyWebhookDisabled } from '../notifications/notifications.service.ts';
import { MAX_ATTEMPTS, retryDelaySeconds } from './retry-schedule.ts';
import { enqueueDelivery } from './webhook-events.ts';
import { signedHeaders } from './webhook-secrets.ts';
// Raw SQL here is atomic claims and leases (D106): an attempt claims its delivery, and settles it only while it still owns it.

/**
 * One attempt at one delivery. The attempt is claimed first (an UPDATE that only one worker can
 * win, with a lease in case the worker dies mid-request), so a job delivered twice by the queue
 * sends once; no database connection is held while the receiver is called. The result, the next
 * retry (as a new job starting later) and the endpoint's failure streak are written in one
 * transaction.
 */
export interface DeliveryDeps {
  em: EntityManager;
  jobs: JobQueue;
  encryptionKeys: EncryptionKey[];
  /** `ALLOW_PRIVATE_FETCH`: tests and local development only. */
  allowPrivate: boolean;
  /** `WEBHOOK_TIMEOUT_SECONDS`: how long one attempt may take (the contract's 10 s by default; no redirects are followed). */
  timeoutSeconds: number;
}

/** Longer than an attempt can take; after it an interrupted attempt may be claimed again. */
const LEASE_SECONDS = 60;
/** Receivers' answers are not read beyond this. */
const RESPONSE_BYTES = 16 * 1024;
/** An endpoint failing continuously for this long is disabled and its owner e-mailed. */
export const DISABLE_AFTER_DAYS = 3;

interface Claimed {
  attempts: number;
  retries: boolean;
  endpoint_id: string;
  event_id: string;
  developer_id: string;
}

interface Target {
  url: string;
  enabled: boolean;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  body: string;
}

interface Outcome {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  /** A failure that is not the receiver's (the endpoint was disabled): no retry, no failure streak. */
  settled?: boolean;
}

export type AttemptResult = 'succeeded' | 'retrying' | 'failed' | 'skipped';

export async function attemptDelivery(deps: DeliveryDeps, deliveryId: string): Promise<AttemptResult> {
  const [claimed] = await executeNamed<Claimed>(
    deps.em,
    `update webhook_deliveries
     set attempts = attempts + 1, leased_until = now() + make_interval(secs => :leaseSeconds), last_attempt_at = now(), updated_at = now()
     where id = :deliveryId and status = 'pending' and next_attempt_at <= now() and (leased_until is null or leased_until < now())
     returning attempts, retries, endpoint_id, event_id,
       (select developer_id from webhook_endpoints where id = endpoint_id) as developer_id`,
    { leaseSeconds: LEASE_SECONDS, deliveryId },
  );
  // Already settled, not due yet (a duplicate job), or being attempted by another worker.
  if (!claimed) return 'skipped';
  const [target] = await executeNamed<Target>(
    deps.em,
    `select w.url, w.enabled, w.secret_sealed,
            case when w.previous_secret_expires_at > now() then w.previous_secret_sealed end as previous_secret_sealed,
            e.body
     from webhook_endpoints w, webhook_events e where w.id = :endpointId and e.id = :eventId`,
    { endpointId: claimed.endpoint_id, eventId: claimed.event_id },
  );
  // Foreign keys cascade: no target means the endpoint was deleted, and the delivery with it.
  if (!target) return 'skipped';
  const outcome: Outcome = target.enabled
    ? await send(deps, claimed, target)
    : { ok: false, statusCode: null, latencyMs: null, error: 'endpoint disabled', settled: true };
  if (!outcome.ok && !outcome.settled) recordWebhookFailure();
  return record(deps, deliveryId, claimed, outcome);
}

async function send(deps: DeliveryDeps, claimed: Claimed, target: Target): Promise<Outcome> {
  const headers = {
    'content-type': 'application/json',
    accept: '*/*',
    'user-agent': 'app-marketplace-webhooks/1',
    ...signedHeaders(
      deps.encryptionKeys,
      { endpointId: claimed.endpoint_id, secretSealed: target.secret_sealed, previousSecretSealed: target.previous_secret_sealed },
      claimed.event_id,
      target.body,
    ),
  };
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    // The URL is vetted again here (DNS may have changed since registration) and the vetted address is the one connected to.
    const response = await safeFetch(target.url, {
      method: 'POST',
      headers,
      body: target.body,
      allowPrivate: deps.allowPrivate,
      timeoutMs: deps.timeoutSeconds * 1000,
      maxRedirects: 0,
      maxBytes: RESPONSE_BYTES,
      enough: () => true,
    });
    return { ok: true, statusCode: response.status, latencyMs: latency(), error: null };
  } catch (error) {
    if (!(error instanceof SafeFetchError)) throw error;
    return { ok: false, statusCode: error.status ?? null, latencyMs: latency(), error: error.reason };
  }
}

async function record(deps: DeliveryDeps, deliveryId: string, claimed: Claimed, outcome: Outcome): Promise<AttemptResult> {
  const retry = !outcome.ok && !outcome.settled && claimed.retries && claimed.attempts < MAX_ATTEMPTS;
  const delay = retry ? retryDelaySeconds(claimed.attempts) : null;
  const status = outcome.ok ? 'succeeded' : retry ? 'pending' : 'failed';
  return deps.em.fork().transactional(async (tx) => {
    // `attempts = :attempts`: an attempt whose lease ran out and was claimed again no longer owns the row.
    const updated = await executeNamed<{ id: string }>(
      tx,
      `update webhook_deliveries
       set status = :status, status_code = :statusCode, latency_ms = :latencyMs, error = :error, leased_until = null, updated_at = now(),
           next_attempt_at = case when :delay::int is null then null else now() + make_interval(secs => :delay::int) end
       where id = :deliveryId and attempts = :attempts returning id`,
      {
        status,
        statusCode: outcome.statusCode,
        latencyMs: outcome.latencyMs,
        error: outcome.error,
        delay,
        deliveryId,
        attempts: claimed.attempts,
      },
    );
    if (updated.length === 0) return 'skipped';
    if (delay !== null) await enqueueDelivery(deps.jobs, tx, deliveryId, claimed.developer_id, { startAfter: delay });
    if (outcome.ok) {
      await executeNamed(tx, 'update webhook_endpoints set failing_since = null where id = :endpointId and failing_since is not null', {
        endpointId: claimed.endpoint_id,
      });
    } else if (!outcome.settled) {
      await recordEndpointFailure(deps.jobs, tx, claimed.endpoint_id);
    }
    return outcome.ok ? 'succeeded' : retry ? 'retrying' : 'failed';
  });
}

/**
 * Deliveries due for over two minutes whose job is gone (dead-lettered while the database was
 * down, or its worker died with the lease held) get a new job; the claim makes any duplicate
 * harmless. Run every few minutes.
 */
export async function requeueStaleDeliveries({ em, jobs }: Pick<DeliveryDeps, 'em' | 'jobs'>): Promise<number> {
  return em.transactional(async (tx) => {
    const stale = await executeNamed<{ id: string; developer_id: string }>(
      tx,
      `select d.id, w.developer_id from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id
       where d.status = 'pending' and d.next_attempt_at < now() - interval '2 minutes' and (d.leased_until is null or d.leased_until < now())
       order by d.next_attempt_at limit 500`,
      {},
    );
    for (const { id, developer_id } of stale) await enqueueDelivery(jobs, tx, id, developer_id);
    return stale.length;
  });
}

/** Extends the endpoint's failure streak; one that has lasted 3 days disables it and mails its owner. */
async function recordEndpointFailure(jobs: JobQueue, tx: EntityManager, endpointId: string): Promise<void> {
  await executeNamed(tx, 'update webhook_endpoints set failing_since = coalesce(failing_since, now()) where id = :endpointId', { endpointId });
  const [disabled] = await executeNamed<{ disabled_at: string }>(
    tx,
    `update webhook_endpoints set enabled = false, disabled_reason = 'failing', disabled_at = now(), updated_at = now()
     where id = :endpointId and enabled and failing_since <= now() - make_interval(days => :days)
     returning disabled_at`,
    { endpointId, days: DISABLE_AFTER_DAYS },
  );
  if (disabled) await notifyWebhookDisabled(jobs, tx, endpointId, new Date(disabled.disabled_at));
}
