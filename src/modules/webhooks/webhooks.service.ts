import { LockMode, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import type { EncryptionKey } from '../../config.ts';
import { ApiError, notFound } from '../../http/problem.ts';
import { pageOf, pageWindow, type Page, type PageInput } from '../../http/pagination.ts';
import type { JobQueue } from '../../lib/job-queue.ts';
import { Developer } from '../developers/developer.entity.ts';
import { TeamMember } from '../teams/team.entity.ts';
import { assertVerified } from '../developers/verification.ts';
import { WebhookEndpoint } from './webhook-endpoint.entity.ts';
import { WebhookDelivery } from './webhook-delivery.entity.ts';
import { createDeliveries, enqueueDelivery } from './webhook-events.ts';
import { generateSecret, ROTATION_OVERLAP_HOURS, sealSecret } from './webhook-secrets.ts';
import type { WebhookUrlPolicy } from './webhook-urls.ts';
import { authorizeTeam, type Caller } from '../teams/access.ts';
import {
  MAX_ENDPOINTS,
  type CreateWebhookInput,
  type DeliveriesQuery,
  type DeliveryView,
  type FailingDelivery,
  type UpdateWebhookInput,
  type WebhookView,
} from './webhooks.model.ts';

/** A developer's webhook endpoints and their deliveries. Another developer's are 404, never 403. */
export interface WebhookServiceDeps {
  em: EntityManager;
  jobs: JobQueue;
  encryptionKeys: EncryptionKey[];
  checkUrl: WebhookUrlPolicy;
}

const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);

export function toWebhookView(endpoint: WebhookEndpoint): WebhookView {
  return {
    id: endpoint.id,
    teamId: endpoint.teamId ?? null,
    url: endpoint.url,
    description: endpoint.description ?? null,
    events: endpoint.events as WebhookView['events'],
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason === 'failing' ? 'failing' : null,
    disabledAt: iso(endpoint.disabledAt),
    failingSince: iso(endpoint.failingSince),
    previousSecretExpiresAt:
      endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > new Date() ? endpoint.previousSecretExpiresAt.toISOString() : null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

export type WebhookWithSecret = WebhookView & { secret: string };

/** A personal endpoint of the caller's, or a team endpoint of a team they may manage webhooks of (the one check in teams/access.ts). */
async function findOwn(em: EntityManager, caller: Caller, id: string, lock = false): Promise<WebhookEndpoint> {
  const endpoint = await em.findOne(WebhookEndpoint, { id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!endpoint) throw notFound('Webhook');
  if (endpoint.teamId) {
    await authorizeTeam(em, caller, endpoint.teamId, 'webhooks', { hidden: notFound('Webhook') });
  } else if (endpoint.developer.id !== caller.developerId || caller.keyTeamId !== null) {
    throw notFound('Webhook');
  }
  return endpoint;
}

/** Registers an endpoint and returns its signing secret, this once. At most 10 per developer. */
export async function createWebhook(deps: WebhookServiceDeps, caller: Caller, input: CreateWebhookInput): Promise<WebhookWithSecret> {
  await deps.checkUrl(input.url);
  const teamId = input.teamId ?? caller.keyTeamId;
  return deps.em.transactional(async (tx) => {
    // A team endpoint needs a maintainer or owner; the team row lock then serialises its registrations.
    if (teamId !== null) await authorizeTeam(tx, caller, teamId, 'webhooks', { lock: true });
    // The developer row lock serialises concurrent registrations, so the cap holds.
    const developer = await tx.findOneOrFail(Developer, { id: caller.developerId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    assertVerified(developer.status, { what: 'Webhook endpoints', done: 'registered' });
    if ((await tx.count(WebhookEndpoint, teamId !== null ? { teamId } : { developer, teamId: null })) >= MAX_ENDPOINTS) {
      throw new ApiError(409, 'LIMIT_EXCEEDED', `At most ${MAX_ENDPOINTS} webhook endpoints; delete one first`);
    }
    const id = Bun.randomUUIDv7();
    const secret = generateSecret();
    const endpoint = tx.create(WebhookEndpoint, {
      id,
      developer,
      teamId,
      url: input.url,
      description: input.description ?? null,
      events: [...input.events],
      enabled: input.enabled ?? true,
      secretSealed: sealSecret(deps.encryptionKeys, secret, id),
    });
    await tx.flush();
    return { ...toWebhookView(endpoint), secret };
  });
}

/** Personal endpoints, and those of every team the caller manages webhooks of (a team key: its team's only). */
export async function listWebhooks(em: EntityManager, caller: Caller): Promise<WebhookView[]> {
  const memberships = await em.find(
    TeamMember,
    { developer: caller.developerId, role: { $in: ['owner', 'maintainer'] }, team: { suspendedAt: null } },
    { fields: ['team'], disableIdentityMap: true },
  );
  const teamIds = memberships.map((member) => member.team.id).filter((id) => caller.keyTeamId === null || id === caller.keyTeamId);
  const personal = caller.keyTeamId === null ? [{ developer: caller.developerId, teamId: null }] : [];
  const endpoints = await em.find(
    WebhookEndpoint,
    { $or: [...personal, { teamId: { $in: teamIds } }] },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  return endpoints.map(toWebhookView);
}

export const getWebhook = async (em: EntityManager, caller: Caller, id: string) => toWebhookView(await findOwn(em, caller, id));

/**
 * PUT semantics: omitted fields stay. `enabled: true` also re-enables an endpoint the service
 * disabled, starting its failure streak afresh; `enabled: false` pauses it (no deliveries).
 */
export async function updateWebhook(deps: WebhookServiceDeps, caller: Caller, id: string, input: UpdateWebhookInput): Promise<WebhookView> {
  if (input.url !== undefined) await deps.checkUrl(input.url);
  return deps.em.transactional(async (tx) => {
    const endpoint = await findOwn(tx, caller, id, true);
    if (input.url !== undefined) endpoint.url = input.url;
    if (input.events !== undefined) endpoint.events = [...input.events];
    if (input.description !== undefined) endpoint.description = input.description;
    if (input.enabled !== undefined && input.enabled !== endpoint.enabled) {
      endpoint.enabled = input.enabled;
      endpoint.disabledReason = null;
      endpoint.disabledAt = input.enabled ? null : new Date();
      endpoint.failingSince = null;
    }
    // A PUT that changes nothing still answers with a fresh `updatedAt`, like app edits.
    endpoint.updatedAt = new Date();
    await tx.flush();
    return toWebhookView(endpoint);
  });
}

/** Deletes the endpoint with its deliveries; returns what it was. */
export async function deleteWebhook(em: EntityManager, caller: Caller, id: string): Promise<WebhookView> {
  return em.transactional(async (tx) => {
    // The caller's first, so no one else's request locks anything here.
    await findOwn(tx, caller, id);
    // Its deliveries' rows before its own, the order a worker recording an attempt takes them in
    // (the delivery, then the endpoint's failure streak): the other way round, the two deadlocked (D235).
    await tx.find(
      WebhookDelivery,
      { endpoint: id },
      { fields: ['id'], orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE, disableIdentityMap: true },
    );
    // Read again under its lock, so the answer is what was deleted; a concurrent DELETE may have taken it.
    const endpoint = await tx.findOne(WebhookEndpoint, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!endpoint) throw notFound('Webhook');
    const view = toWebhookView(endpoint);
    tx.remove(endpoint);
    return view;
  });
}

/**
 * A new signing secret; the one it replaces keeps signing too for 24 hours (two signatures in
 * `webhook-signature`), so the receiver can switch without rejecting a delivery. Rotating again
 * within the overlap drops the oldest secret.
 */
export async function rotateSecret(deps: WebhookServiceDeps, caller: Caller, id: string): Promise<WebhookWithSecret> {
  return deps.em.transactional(async (tx) => {
    const endpoint = await findOwn(tx, caller, id, true);
    const secret = generateSecret();
    endpoint.previousSecretSealed = endpoint.secretSealed;
    endpoint.previousSecretExpiresAt = new Date(Date.now() + ROTATION_OVERLAP_HOURS * 3_600_000);
    endpoint.secretSealed = sealSecret(deps.encryptionKeys, secret, endpoint.id);
    await tx.flush();
    return { ...toWebhookView(endpoint), secret };
  });
}

/** Test pings and redeliveries reach the developer's receiver at their request: like registering, only for a verified account. */
async function assertMaySend(em: EntityManager, developerId: string): Promise<void> {
  assertVerified((await em.findOneOrFail(Developer, developerId)).status, { what: 'Test pings and redeliveries', done: 'sent' });
}

const assertEnabled = (endpoint: WebhookEndpoint) => {
  if (!endpoint.enabled) throw new ApiError(409, 'CONFLICT', 'The endpoint is disabled; enable it first (PUT with "enabled": true)');
};

/** Sends a `ping` event to this endpoint alone: one attempt, recorded like any delivery. */
export async function sendPing(deps: WebhookServiceDeps, caller: Caller, id: string): Promise<DeliveryView> {
  // The answer is the delivery as created (pending, no attempt), read before the commit lets a worker claim it, as for redeliveries.
  return deps.em.transactional(async (tx) => {
    await assertMaySend(tx, caller.developerId);
    const endpoint = await findOwn(tx, caller, id, true);
    assertEnabled(endpoint);
    const created = await createDeliveries(
      deps.jobs,
      tx,
      {
        developerId: caller.developerId,
        type: 'ping',
        data: () => ({ webhookId: endpoint.id, message: 'This is a test event sent at your request.' }),
      },
      [endpoint.id],
      { retries: false },
    );
    const [[delivery]] = await findDeliveries(tx, { id: created!.deliveryIds[0]! }, 1, 0);
    return toDeliveryView(delivery!);
  });
}

const toDeliveryView = (delivery: WebhookDelivery): DeliveryView => ({
  id: delivery.id,
  eventId: delivery.event.id,
  eventType: delivery.event.type,
  status: delivery.status,
  attempt: delivery.attempts,
  statusCode: delivery.statusCode ?? null,
  latencyMs: delivery.latencyMs ?? null,
  error: delivery.error ?? null,
  nextAttemptAt: iso(delivery.nextAttemptAt),
  lastAttemptAt: iso(delivery.lastAttemptAt),
  createdAt: delivery.createdAt.toISOString(),
});

/** Deliveries with their events' types, read afresh (workers change them under this request). */
const findDeliveries = (em: EntityManager, where: FilterQuery<WebhookDelivery>, limit: number, offset: number) =>
  em.findAndCount(WebhookDelivery, where, {
    populate: ['event'],
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit,
    offset,
    disableIdentityMap: true,
  });

/** The endpoint's deliveries, newest first, optionally only those in one status. */
export async function listDeliveries(em: EntityManager, caller: Caller, id: string, query: DeliveriesQuery): Promise<Page<DeliveryView>> {
  const { page, limit, offset } = pageWindow(query);
  await findOwn(em, caller, id);
  const [deliveries, total] = await findDeliveries(em, { endpoint: id, ...(query.status && { status: query.status }) }, limit, offset);
  return pageOf(deliveries.map(toDeliveryView), page, limit, total);
}

/**
 * Sends a delivery again now, with the same `webhook-id` (receivers deduplicate on it). A settled
 * delivery gets one more attempt; a pending one has its next attempt brought forward.
 */
export async function redeliver(deps: WebhookServiceDeps, caller: Caller, id: string, deliveryId: string): Promise<DeliveryView> {
  // The answer is the delivery as this request left it (pending), not as a quick worker already changed it.
  return deps.em.transactional(async (tx) => {
    await assertMaySend(tx, caller.developerId);
    const endpoint = await findOwn(tx, caller, id);
    // The row lock keeps a worker from claiming the delivery while it is rescheduled.
    const delivery = await tx.findOne(
      WebhookDelivery,
      { id: deliveryId, endpoint: endpoint.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    if (!delivery) throw notFound('Delivery');
    assertEnabled(endpoint);
    if (delivery.leasedUntil && delivery.leasedUntil > new Date()) {
      throw new ApiError(409, 'CONFLICT', 'An attempt at this delivery is in progress; try again in a few seconds');
    }
    // A settled delivery gets one more attempt, without retries; a pending one keeps its own.
    if (delivery.status !== 'pending') delivery.retries = false;
    delivery.status = 'pending';
    delivery.nextAttemptAt = new Date();
    await tx.flush();
    await enqueueDelivery(deps.jobs, tx, deliveryId, endpoint.developer.id);
    return toDeliveryView(await tx.populate(delivery, ['event']));
  });
}

/**
 * For the admin console's Jobs page: deliveries whose latest attempt failed, across developers,
 * most recent first — settled failures and those still being retried alike.
 */
export async function listFailingDeliveries(em: EntityManager, query: PageInput): Promise<Page<FailingDelivery>> {
  const { page, limit, offset } = pageWindow(query);
  const [deliveries, total] = await em.findAndCount(
    WebhookDelivery,
    { error: { $ne: null } },
    {
      populate: ['event', 'endpoint', 'endpoint.developer'],
      orderBy: { lastAttemptAt: 'desc', id: 'desc' },
      limit,
      offset,
      disableIdentityMap: true,
    },
  );
  const data = deliveries.map((delivery) => ({
    ...toDeliveryView(delivery),
    endpointId: delivery.endpoint.id,
    url: delivery.endpoint.url,
    developerId: delivery.endpoint.developer.id,
    developerName: delivery.endpoint.developer.name,
    developerEmail: delivery.endpoint.developer.email,
  }));
  return pageOf(data, page, limit, total);
}
