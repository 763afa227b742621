import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { createApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { listFailingDeliveries } from '../../src/modules/webhooks/webhooks.service.ts';
import { MAX_ATTEMPTS, retryDelaySeconds } from '../../src/modules/webhooks/retry-schedule.ts';
import { requeueStaleDeliveries } from '../../src/modules/webhooks/webhook-delivery.ts';
import { WEBHOOK_SWEEP_QUEUE } from '../../jobs/webhooks.ts';
import { signatureMatches, startReceiver, type Receiver } from './receiver.ts';

/** Delivery behaviour against a receiver on 127.0.0.1: retries, redirects, rotation, redelivery, disabling. */
let t: TestApp;
let receiver: Receiver;
let paths = 0;

beforeAll(async () => {
  // Receivers get 2 s an attempt here (WEBHOOK_TIMEOUT_SECONDS; the default, 10 s, is the config test's).
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true', WEBHOOK_TIMEOUT_SECONDS: '2' });
  receiver = startReceiver();
});
afterAll(async () => {
  await receiver.stop();
  await t.close();
});

interface Hook {
  id: string;
  secret: string;
  path: string;
  /** The endpoint's owner and their key. */
  dev: TestDeveloper;
  key: string;
}

/**
 * An endpoint at a path of its own on the receiver, owned by a new developer so the 10-endpoint cap
 * never interferes and each test's deliveries, apps and e-mail are its own (the tests run side by side).
 */
async function endpoint(events: string[] = ['app.submitted']): Promise<Hook> {
  const dev = await registerDeveloper(t);
  const key = await mintKey(t, dev);
  paths += 1;
  const path = `/hook-${paths}`;
  const response = await t.call('POST', '/api/dev/webhooks', { token: key, body: { url: receiver.url(path), events } });
  expect(response.status).toBe(201);
  return { id: response.body.id as string, secret: response.body.secret as string, path, dev, key };
}

const deliveries = async (hook: Hook, query = '') => {
  const response = await t.call('GET', `/api/dev/webhooks/${hook.id}/deliveries${query}`, { token: hook.key });
  expect(response.status).toBe(200);
  return response.body;
};
const delivery = async (hook: Hook, deliveryId: string) =>
  (await deliveries(hook, '?limit=100')).data.find((row: { id: string }) => row.id === deliveryId);
const settled = (hook: Hook, deliveryId: string, status = 'succeeded') =>
  eventually(async () => {
    const row = await delivery(hook, deliveryId);
    return row?.status === status && row.attempt > 0 && row;
  });
/** Submits a new app and has the receiver fail its `app.submitted` with `statuses`; resolves with the delivery once the first attempt is recorded. */
async function failedSubmission(hook: Hook, ...statuses: number[]) {
  receiver.answer(hook.path, ...statuses);
  const app = await createApp(t, hook.key);
  await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: hook.key });
  return eventually(async () => {
    const [row] = (await deliveries(hook)).data;
    return row?.attempt === 1 && row.error && row;
  });
}
/** Time travel: the delivery's next attempt is due now. */
async function dueNow(deliveryId: string) {
  await t.sql(`update webhook_deliveries set next_attempt_at = now() where id = ?`, [deliveryId]);
  await t.sql(`update pgboss.job set start_after = now() where name = 'webhooks.deliver' and data->>'deliveryId' = ? and state = 'created'`, [
    deliveryId,
  ]);
}
const ping = async (hook: Hook) => {
  const response = await t.call('POST', `/api/dev/webhooks/${hook.id}/test`, { token: hook.key });
  expect(response.status).toBe(201);
  return response.body;
};

// Each test has its own developer, endpoint and receiver path, so the tests wait on their deliveries
// side by side (the 10 s timeout beside the rest); the two that read every delivery run alone.
describe.concurrent('retries', () => {
  // Serial: the sweep counts (and requeues) every stale delivery in the database, so it runs alone, first.
  test.serial('a delivery whose job was lost is picked up by the sweep, and sent once', async () => {
    const hook = await endpoint();
    const first = await failedSubmission(hook, 500);
    // The retry's job is lost, and the retry is long overdue.
    await t.sql(`delete from pgboss.job where name = 'webhooks.deliver' and data->>'deliveryId' = ?`, [first.id]);
    await t.sql(`update webhook_deliveries set next_attempt_at = now() - interval '3 minutes' where id = ?`, [first.id]);
    expect(await requeueStaleDeliveries({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs })).toBe(1);
    // Sweeping again at once may add a duplicate job: the claim makes it harmless.
    await requeueStaleDeliveries({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs });
    expect(await settled(hook, first.id)).toMatchObject({ attempt: 2, statusCode: 200 });
    await Bun.sleep(500);
    expect(receiver.at(hook.path)).toHaveLength(2);
    expect(await requeueStaleDeliveries({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs })).toBe(0);
    expect((await t.ctx.boss.getSchedules(WEBHOOK_SWEEP_QUEUE)).map((schedule) => schedule.cron)).toEqual(['*/5 * * * *']);
  });

  test('a receiver answering 500 then 200 gets the event exactly once more, when the retry falls due about 30 s later', async () => {
    const hook = await endpoint();
    receiver.answer(hook.path, 500);
    const app = await createApp(t, hook.key);
    expect((await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: hook.key })).status).toBe(200);

    const failed = await eventually(async () => {
      const [row] = (await deliveries(hook)).data;
      return row?.attempt === 1 && row.statusCode !== null && row;
    });
    expect(failed).toMatchObject({ eventType: 'app.submitted', status: 'pending', statusCode: 500, error: 'bad status 500' });
    expect(failed.latencyMs).toBeGreaterThanOrEqual(0);
    const wait = (Date.parse(failed.nextAttemptAt) - Date.parse(failed.lastAttemptAt)) / 1000;
    expect(wait).toBeGreaterThanOrEqual(24);
    expect(wait).toBeLessThanOrEqual(31);

    // The retry is a job that pg-boss holds back until the delivery's next attempt is due.
    const retries = await t.sql(
      `select start_after from pgboss.job where name = 'webhooks.deliver' and data->>'deliveryId' = ? and state = 'created'`,
      [failed.id],
    );
    expect(retries).toHaveLength(1);
    expect(Math.abs(new Date(retries[0].start_after).getTime() - Date.parse(failed.nextAttemptAt))).toBeLessThan(2_000);
    expect(receiver.at(hook.path)).toHaveLength(1);
    // Time travel instead of waiting 25 s: the retry falls due now.
    await dueNow(failed.id);
    const succeeded = await settled(hook, failed.id);
    expect(succeeded).toMatchObject({ status: 'succeeded', attempt: 2, statusCode: 200, error: null, nextAttemptAt: null });
    const requests = receiver.at(hook.path);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.headers['webhook-id']).toBe(requests[1]!.headers['webhook-id']);
    expect(requests[0]!.body).toBe(requests[1]!.body);
    for (const request of requests) expect(signatureMatches(hook.secret, request)).toBe(true);
    // Nothing more is due: no job is left that could send it a third time.
    expect(
      await t.sql(`select 1 from pgboss.job where name = 'webhooks.deliver' and data->>'deliveryId' = ? and state in ('created', 'retry')`, [
        failed.id,
      ]),
    ).toEqual([]);
    expect(receiver.at(hook.path)).toHaveLength(2);
  }, 30_000);

  test('the schedule: first retry within about 30 s, backing off exponentially over at least 24 h', () => {
    expect(retryDelaySeconds(1, 0)).toBe(25);
    expect(retryDelaySeconds(1, 0.999)).toBeLessThanOrEqual(30);
    const delays = (random: number) => Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => retryDelaySeconds(i + 1, random));
    for (const [a, b] of delays(0)
      .slice(0, 5)
      .map((delay, i, all) => [delay, all[i + 1] ?? delay * 4]))
      expect(b).toBe(a! * 4);
    const total = (random: number) => delays(random).reduce((sum, delay) => sum + delay, 0);
    expect(total(0)).toBeGreaterThanOrEqual(24 * 3600);
    expect(total(0.999)).toBeLessThan(36 * 3600);
  });

  test('a delivery out of attempts is marked failed and is not retried again', async () => {
    const hook = await endpoint();
    const first = await failedSubmission(hook, 503, 503);
    // Time travel: this is the last attempt, due now.
    await t.sql(`update webhook_deliveries set attempts = ? where id = ?`, [MAX_ATTEMPTS - 1, first.id]);
    await dueNow(first.id);
    const failed = await settled(hook, first.id, 'failed');
    expect(failed).toMatchObject({ attempt: MAX_ATTEMPTS, statusCode: 503, error: 'bad status 503', nextAttemptAt: null });
    expect(
      await t.sql(`select 1 from pgboss.job where name = 'webhooks.deliver' and data->>'deliveryId' = ? and state = 'created'`, [first.id]),
    ).toEqual([]);
  });

  test('a receiver that does not answer within the timeout fails the attempt with a timeout', async () => {
    const hook = await endpoint();
    receiver.answer(hook.path, async () => {
      await Bun.sleep(6_000);
      return new Response(null);
    });
    const pending = await ping(hook);
    const failed = await settled(hook, pending.id, 'failed');
    expect(failed).toMatchObject({ error: 'timeout', statusCode: null });
    expect(failed.latencyMs).toBeGreaterThanOrEqual(1_900);
    expect(failed.latencyMs).toBeLessThan(4_000);
  });
});

describe.concurrent('refusals at delivery', () => {
  test('a redirect is not followed: the attempt fails with its status and the target is never asked', async () => {
    const hook = await endpoint();
    receiver.answer(hook.path, () => new Response(null, { status: 302, headers: { location: receiver.url('/redirect-target') } }));
    const pending = await ping(hook);
    const failed = await settled(hook, pending.id, 'failed');
    expect(failed).toMatchObject({ eventType: 'ping', attempt: 1, statusCode: 302, error: 'redirect not followed' });
    expect(receiver.at('/redirect-target')).toEqual([]);
  });
});

describe.concurrent('secret rotation', () => {
  test('the old secret keeps signing beside the new one for 24 h, then only the new one signs', async () => {
    const hook = await endpoint();
    const rotated = await t.call('POST', `/api/dev/webhooks/${hook.id}/rotate-secret`, { token: hook.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    const overlapHours = (Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()) / 3_600_000;
    expect(overlapHours).toBeGreaterThan(23.9);
    expect(overlapHours).toBeLessThanOrEqual(24);

    await settled(hook, (await ping(hook)).id);
    const [during] = receiver.at(hook.path);
    expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(signatureMatches(hook.secret, during!)).toBe(true);
    expect(signatureMatches(rotated.body.secret, during!)).toBe(true);
    expect(signatureMatches(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, during!)).toBe(false);

    // The overlap is over.
    await t.sql(`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = ?`, [hook.id]);
    expect((await t.call('GET', `/api/dev/webhooks/${hook.id}`, { token: hook.key })).body.previousSecretExpiresAt).toBeNull();
    await settled(hook, (await ping(hook)).id);
    const after = receiver.at(hook.path)[1]!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(signatureMatches(hook.secret, after)).toBe(false);
    expect(signatureMatches(rotated.body.secret, after)).toBe(true);
  });
});

describe.concurrent('an endpoint failing for 3 days', () => {
  test('is disabled and its owner e-mailed; re-enabling it starts afresh', async () => {
    const hook = await endpoint();
    receiver.answer(hook.path, 500, 500);
    await t.sql(`update webhook_endpoints set failing_since = now() - interval '2 days 23 hours' where id = ?`, [hook.id]);
    await settled(hook, (await ping(hook)).id, 'failed');
    // Not yet three days.
    expect((await t.call('GET', `/api/dev/webhooks/${hook.id}`, { token: hook.key })).body).toMatchObject({ enabled: true, disabledReason: null });

    await t.sql(`update webhook_endpoints set failing_since = now() - interval '3 days 1 minute' where id = ?`, [hook.id]);
    await settled(hook, (await ping(hook)).id, 'failed');
    const disabled = (await t.call('GET', `/api/dev/webhooks/${hook.id}`, { token: hook.key })).body;
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'failing' });
    expect(disabled.disabledAt).not.toBeNull();

    const mail = await eventually(
      async () => (await t.sql(`select * from emails where kind = 'webhook-disabled' and message_id like ?`, [`webhook-disabled:${hook.id}:%`]))[0],
    );
    expect(mail).toMatchObject({
      to_address: hook.dev.email,
      developer_id: hook.dev.id,
      subject: 'A webhook endpoint was disabled after 3 days of failed deliveries',
    });
    expect(mail.text_body).toContain(receiver.url(hook.path));
    expect(mail.text_body).toContain(`PUT /api/dev/webhooks/${hook.id}`);

    // Disabled: no pings, no redeliveries, and events are not fanned out to it.
    expect((await t.call('POST', `/api/dev/webhooks/${hook.id}/test`, { token: hook.key })).status).toBe(409);
    const requestsWhileDisabled = receiver.at(hook.path).length;
    const app = await createApp(t, hook.key);
    await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: hook.key });
    await Bun.sleep(500);
    expect(receiver.at(hook.path)).toHaveLength(requestsWhileDisabled);

    const enabled = await t.call('PUT', `/api/dev/webhooks/${hook.id}`, { token: hook.key, body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null, failingSince: null });
    await settled(hook, (await ping(hook)).id);
  });

  test('a success ends the failure streak', async () => {
    const hook = await endpoint();
    await t.sql(`update webhook_endpoints set failing_since = now() - interval '3 days 1 minute' where id = ?`, [hook.id]);
    await settled(hook, (await ping(hook)).id);
    expect((await t.call('GET', `/api/dev/webhooks/${hook.id}`, { token: hook.key })).body).toMatchObject({ enabled: true, failingSince: null });
  });

  test('deliveries still pending when their endpoint was disabled are settled as failed, without a request', async () => {
    const hook = await endpoint();
    const first = await failedSubmission(hook, 500);
    expect((await t.call('PUT', `/api/dev/webhooks/${hook.id}`, { token: hook.key, body: { enabled: false } })).body).toMatchObject({
      enabled: false,
      disabledReason: null,
    });
    await dueNow(first.id);
    expect(await settled(hook, first.id, 'failed')).toMatchObject({ attempt: 2, error: 'endpoint disabled', statusCode: null });
    expect(receiver.at(hook.path)).toHaveLength(1);
  });
});

describe.concurrent('the deliveries log and redelivery', () => {
  test('ping is recorded like any delivery; a failed one is redelivered with the same webhook-id', async () => {
    const hook = await endpoint();
    receiver.answer(hook.path, 500);
    const pending = await ping(hook);
    expect(pending).toMatchObject({ eventType: 'ping', status: 'pending', attempt: 0, statusCode: null });
    const failed = await settled(hook, pending.id, 'failed');
    expect(failed).toMatchObject({ attempt: 1, statusCode: 500, nextAttemptAt: null });
    const [first] = receiver.at(hook.path);
    expect(first!.json).toMatchObject({ type: 'ping', data: { webhookId: hook.id } });

    const redelivered = await t.call('POST', `/api/dev/webhooks/${hook.id}/deliveries/${pending.id}/redeliver`, { token: hook.key });
    expect(redelivered.status).toBe(200);
    expect(redelivered.body).toMatchObject({ id: pending.id, status: 'pending' });
    expect(await settled(hook, pending.id)).toMatchObject({ attempt: 2, statusCode: 200, error: null });
    const [, second] = receiver.at(hook.path);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(signatureMatches(hook.secret, second!)).toBe(true);
  });

  test('the log is paged newest first and filters by status', async () => {
    const hook = await endpoint();
    receiver.answer(hook.path, 500);
    const failing = await ping(hook);
    await settled(hook, failing.id, 'failed');
    for (let i = 0; i < 2; i++) await settled(hook, (await ping(hook)).id);
    const firstPage = await deliveries(hook, '?limit=2');
    expect(firstPage.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(firstPage.data.map((row: { status: string }) => row.status)).toEqual(['succeeded', 'succeeded']);
    expect((await deliveries(hook, '?limit=2&page=2')).data.map((row: { id: string }) => row.id)).toEqual([failing.id]);
    expect((await deliveries(hook, '?status=failed')).data.map((row: { id: string }) => row.id)).toEqual([failing.id]);
    const [row] = (await deliveries(hook, '?status=failed')).data;
    expect(Object.keys(row).sort()).toEqual(
      ['attempt', 'createdAt', 'error', 'eventId', 'eventType', 'id', 'lastAttemptAt', 'latencyMs', 'nextAttemptAt', 'status', 'statusCode'].sort(),
    );
    expect((await t.call('GET', `/api/dev/webhooks/${hook.id}/deliveries?status=lost`, { token: hook.key })).status).toBe(400);
  });

  // Serial, and last in the file: it pages every failing delivery in the database, and its totals
  // hold only while no other test is adding any.
  test.serial("the console's failing deliveries list spans developers and names them", async () => {
    const failing: { hook: Hook; delivery: { id: string }; owner: TestDeveloper; status: number }[] = [];
    for (const status of [500, 404]) {
      const hook = await endpoint();
      receiver.answer(hook.path, status);
      const delivery = await settled(hook, (await ping(hook)).id, 'failed');
      failing.push({ hook, delivery, owner: hook.dev, status });
    }
    const succeeded = await endpoint();
    const fine = await settled(succeeded, (await ping(succeeded)).id);

    const page = await listFailingDeliveries(t.ctx.orm.em.fork(), { page: 1, limit: 100 });
    expect(page.data.every((row) => row.error !== null)).toBe(true);
    expect(page.data.map((row) => row.id)).not.toContain(fine.id);
    for (const { hook, delivery, owner, status } of failing) {
      expect(page.data.find((row) => row.id === delivery.id)).toMatchObject({
        endpointId: hook.id,
        url: receiver.url(hook.path),
        developerId: owner.id,
        developerEmail: owner.email,
        eventType: 'ping',
        statusCode: status,
        error: `bad status ${status}`,
      });
    }
    // Newest first.
    const times = page.data.map((row) => Date.parse(row.lastAttemptAt!));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(page.data.findIndex((row) => row.id === failing[1]!.delivery.id)).toBeLessThan(
      page.data.findIndex((row) => row.id === failing[0]!.delivery.id),
    );
    const paged = await listFailingDeliveries(t.ctx.orm.em.fork(), { page: 2, limit: 1 });
    expect(paged.pagination).toMatchObject({ page: 2, limit: 1, total: page.pagination.total });
  });
});
