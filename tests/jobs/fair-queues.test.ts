import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { createApp, deps, minimalApp } from '../apps/fixtures.ts';
import { createApp as createAppService } from '../../src/modules/apps/apps.service.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { image, startImageServer, type ImageServer } from '../assets/image-server.ts';
import { png } from '../assets/images.ts';

/**
 * One developer cannot starve the queues every developer shares: test pings and redeliveries are
 * limited per developer, apps are capped per developer, and webhook deliveries and asset checks
 * are scheduled in per-developer groups, so a developer whose receivers or image hosts are slow
 * holds only some of the workers while another developer's work goes straight through.
 */
let t: TestApp;
let receiver: Receiver;
let images: ImageServer;

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true', RATE_LIMITS: 'webhook-sends=10' });
  receiver = startReceiver();
  images = startImageServer({
    '/logo.png': image(png(512, 512), 'image/png'),
    // Answers at once, then sends a byte a second: the check waits out its whole fetch limit.
    '/trickle.png': () =>
      new Response(
        new ReadableStream({
          async pull(controller) {
            await Bun.sleep(1_000);
            controller.enqueue(new Uint8Array([0x89]));
          },
        }),
        { headers: { 'content-type': 'image/png' } },
      ),
  });
});
afterAll(async () => {
  await images.stop();
  await receiver.stop();
  await t.close();
}, 15_000);

/** Polls `check` every 50 ms until it holds, for at most `ms`; returns how long that took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await Bun.sleep(50);
  }
  return Date.now() - started;
}

async function endpoint(developer: TestDeveloper, path: string) {
  const response = await t.call('POST', '/api/dev/webhooks', {
    token: developer.oauthToken,
    body: { url: receiver.url(path), events: ['app.approved'] },
  });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

describe('webhook deliveries', () => {
  test("a developer's slow receiver, pinged over and over, holds two workers at most; another developer's ping goes straight through", async () => {
    const [slow, other] = [await registerDeveloper(t), await registerDeveloper(t)];
    const slowHook = await endpoint(slow, '/slow');
    const otherHook = await endpoint(other, '/other');
    // The slow receiver answers nothing until the test lets it go (a delivery gives up after 10 s).
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    receiver.answer('/slow', ...Array.from({ length: 10 }, () => () => released.then(() => new Response(null, { status: 204 }))));

    for (let i = 0; i < 10; i += 1) {
      expect((await t.call('POST', `/api/dev/webhooks/${slowHook}/test`, { token: slow.oauthToken })).status).toBe(201);
    }
    // Ten a minute per developer, pings and redeliveries together, with the usual headers.
    const limited = await t.call('POST', `/api/dev/webhooks/${slowHook}/test`, { token: slow.oauthToken });
    expect([limited.status, limited.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(limited.headers.get('ratelimit-limit')).toBe('10');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const [first] = (await t.sql('select d.id from webhook_deliveries d where d.endpoint_id = ? limit 1', [slowHook])) as { id: string }[];
    const redelivery = await t.call('POST', `/api/dev/webhooks/${slowHook}/deliveries/${first!.id}/redeliver`, { token: slow.oauthToken });
    expect(redelivery.status).toBe(429);
    expect((await t.sql('select count(*)::int as n from webhook_deliveries where endpoint_id = ?', [slowHook]))[0].n).toBe(10);
    await within(5_000, async () => receiver.at('/slow').length >= 2);

    // Before the groups, all five workers hung on the slow receiver and this waited 20 s and more.
    expect((await t.call('POST', `/api/dev/webhooks/${otherHook}/test`, { token: other.oauthToken })).status).toBe(201);
    await within(4_000, async () => receiver.at('/other').length === 1);
    expect(receiver.at('/slow').length).toBeLessThanOrEqual(2);

    // The slow developer is only slowed: once their receiver answers, every ping is delivered.
    release();
    await within(10_000, async () => {
      const [row] = await t.sql("select count(*)::int as n from webhook_deliveries where endpoint_id = ? and status = 'succeeded'", [slowHook]);
      return row.n === 10;
    });
  }, 30_000);
});

describe('asset checks', () => {
  test("a developer's trickling logos hold two workers at most; another developer's check goes straight through", async () => {
    const slowKey = await mintKey(t, await registerDeveloper(t));
    const otherKey = await mintKey(t, await registerDeveloper(t));
    const trickling = await Promise.all(
      Array.from({ length: 10 }, () => createApp(t, slowKey, minimalApp({ logoUrl: `${images.origin}/trickle.png` }))),
    );
    await within(5_000, async () => images.hits.filter((path) => path === '/trickle.png').length >= 2);
    // Before the groups, two workers took the trickling apps five at a time and this waited 20 s and more.
    const app = await createApp(t, otherKey, minimalApp({ logoUrl: `${images.origin}/logo.png` }));
    await within(4_000, async () => (await t.sql('select 1 from asset_checks where app_id = ?', [app.id])).length === 1);
    const checked = await t.sql('select count(distinct app_id)::int as n from asset_checks where app_id in (?)', [trickling.map((a) => a.id)]);
    expect(checked[0].n).toBeLessThanOrEqual(2);
    expect(images.hits.filter((path) => path === '/trickle.png').length).toBeLessThanOrEqual(4);
  }, 30_000);
});

describe('apps per developer', () => {
  test('at most the configured number, even when created at once; 409 LIMIT_EXCEEDED; a deletion makes room', async () => {
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    for (let i = 0; i < 3; i += 1) await createApp(t, key, minimalApp());
    const attempts = await Promise.allSettled(
      Array.from({ length: 4 }, () =>
        createAppService({ ...deps(t), maxApps: 5 }, { developerId: developer.id, keyTeamId: null }, minimalApp() as never),
      ),
    );
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(2);
    for (const attempt of attempts.filter((attempt) => attempt.status === 'rejected')) {
      expect((attempt as PromiseRejectedResult).reason).toMatchObject({ status: 409, code: 'LIMIT_EXCEEDED' });
    }
    const count = async () => (await t.sql('select count(*)::int as n from apps where developer_id = ?', [developer.id]))[0].n;
    expect(await count()).toBe(5);
    const [doomed] = await t.sql('select id from apps where developer_id = ? limit 1', [developer.id]);
    expect((await t.call('DELETE', `/api/dev/apps/${doomed.id}`, { token: key })).status).toBe(200);
    await createAppService({ ...deps(t), maxApps: 5 }, { developerId: developer.id, keyTeamId: null }, minimalApp() as never);
    expect(await count()).toBe(5);
  });

  test('over HTTP the cap is the configured one (100 by default), answered as a problem', async () => {
    expect(t.ctx.config.maxAppsPerDeveloper).toBe(100);
    const developer = await registerDeveloper(t);
    const key = await mintKey(t, developer);
    // Filling 100 through the API would prove nothing more: the rows are written directly.
    await t.sql(
      `insert into apps (id, developer_id, slug, name, description, category, environment, status, version, screenshots, created_at, updated_at)
       select gen_random_uuid(), ?, 'filler-' || n || '-' || left(?::text, 8), 'Filler ' || n, 'A filler.', 'UTILITIES', 'staging', 'DRAFT', 1, '[]', now(), now()
       from generate_series(1, 100) n`,
      [developer.id, developer.id],
    );
    const refused = await t.call('POST', '/api/dev/apps', { token: key, body: minimalApp() });
    expect([refused.status, refused.body.code]).toEqual([409, 'LIMIT_EXCEEDED']);
    expect(refused.body.detail).toContain('100');
  });
});
