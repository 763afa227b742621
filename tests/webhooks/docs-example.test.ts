import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { createApp } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { createReceiver, type MarketplaceEvent } from '../../docs/examples/webhook-receiver.ts';

/** The receiver that docs/webhooks.md shows, run against real deliveries. */
const ROOT = join(import.meta.dir, '../..');
let t: TestApp;
let dev: TestDeveloper;
let key: string;

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_FETCH: 'true' });
  dev = await registerDeveloper(t);
  key = await mintKey(t, dev);
});
afterAll(() => t.close());

const register = async (url: string) => {
  const response = await t.call('POST', '/api/dev/webhooks', { token: key, body: { url, events: ['app.submitted'] } });
  expect(response.status).toBe(201);
  return response.body as { id: string; secret: string };
};
const latestDelivery = async (endpointId: string) => (await t.call('GET', `/api/dev/webhooks/${endpointId}/deliveries`, { token: key })).body.data[0];

test('docs/webhooks.md shows the example file as it is', async () => {
  const doc = await Bun.file(join(ROOT, 'docs/webhooks.md')).text();
  const example = await Bun.file(join(ROOT, 'docs/examples/webhook-receiver.ts')).text();
  expect(doc).toContain(`\`\`\`ts\n${example}\`\`\``);
});

test('the example receiver accepts genuine deliveries once each and refuses forged ones', async () => {
  const events: MarketplaceEvent[] = [];
  const handled = new Set<string>();
  // Built per request so the test can switch the secret, as a redeploy would.
  let secret = '';
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) => createReceiver({ secret, onEvent: (event) => void events.push(event), handled })(request),
  });
  try {
    const endpoint = await register(`http://127.0.0.1:${server.port}/marketplace`);
    secret = endpoint.secret;
    const app = await createApp(t, key);
    await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
    await eventually(async () => events.length === 1);
    expect(events[0]).toMatchObject({ type: 'app.submitted', data: { id: app.id, status: 'PENDING' } });
    const delivery = await eventually(async () => {
      const row = await latestDelivery(endpoint.id);
      return row?.status === 'succeeded' && row;
    });
    expect(delivery.statusCode).toBe(204);

    // A redelivery reaches it (204) but is handled once.
    await t.call('POST', `/api/dev/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`, { token: key });
    await eventually(async () => (await latestDelivery(endpoint.id)).attempt === 2);
    expect(events).toHaveLength(1);

    // Forged: the right headers, a body someone changed.
    const genuine = { 'webhook-id': events[0]!.id, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' };
    const forged = await fetch(`http://127.0.0.1:${server.port}/marketplace`, { method: 'POST', headers: genuine, body: '{"type":"app.approved"}' });
    expect(forged.status).toBe(401);
    expect(events).toHaveLength(1);

    // After a rotation it keeps working with the old secret during the overlap, and with the new one.
    const rotated = (await t.call('POST', `/api/dev/webhooks/${endpoint.id}/rotate-secret`, { token: key })).body;
    await t.call('POST', `/api/dev/webhooks/${endpoint.id}/test`, { token: key });
    await eventually(async () => events.length === 2);
    secret = rotated.secret;
    await t.call('POST', `/api/dev/webhooks/${endpoint.id}/test`, { token: key });
    await eventually(async () => events.length === 3);
    expect(events.slice(1).map((event) => event.type)).toEqual(['ping', 'ping']);
  } finally {
    await server.stop(true);
  }
});

test('the example runs as a program', async () => {
  const endpoint = await register('http://127.0.0.1:9/placeholder');
  const child = Bun.spawn(['bun', 'docs/examples/webhook-receiver.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: endpoint.secret, PORT: '0' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  try {
    const reader = child.stdout.getReader();
    let output = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(output)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the example exited: ${output}${await new Response(child.stderr).text()}`);
        output += new TextDecoder().decode(value);
      }
      return output.match(pattern)!;
    };
    const [, url] = await readUntil(/listening on (\S+)/);
    await t.call('PUT', `/api/dev/webhooks/${endpoint.id}`, { token: key, body: { url: url!.replace('localhost', '127.0.0.1') } });
    await t.call('POST', `/api/dev/webhooks/${endpoint.id}/test`, { token: key });
    await readUntil(/"type":"ping"/);
  } finally {
    child.kill();
    await child.exited;
  }
}, 20_000);
