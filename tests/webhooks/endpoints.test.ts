import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from 'bun:test';
import dns from 'node:dns/promises';
import pg from 'pg';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { eventually } from '../support/eventually.ts';
import { loadConfig } from '../../src/config.ts';
import { open, seal } from '../../src/lib/secret-box.ts';
import { createWebhookUrlPolicy } from '../../src/modules/webhooks/webhook-urls.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';

/**
 * Managing endpoints, with the service as it runs in production: private addresses refused
 * (no ALLOW_PRIVATE_FETCH), so the SSRF guard applies at registration and at delivery.
 */
let t: TestApp;
let dev: TestDeveloper;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  dev = await registerDeveloper(t);
  key = await mintKey(t, dev);
});
afterAll(() => t.close());

/** DNS answers as the test says for `*.example` hosts (the machine has no outside DNS). */
let answers: Record<string, string> = {};
const realLookup = dns.lookup.bind(dns);
const lookup = spyOn(dns, 'lookup').mockImplementation((async (host: string, options: unknown) => {
  const address = answers[host];
  if (address) return [{ address, family: address.includes(':') ? 6 : 4 }];
  return (realLookup as (host: string, options: unknown) => Promise<unknown>)(host, options);
}) as unknown as typeof dns.lookup);
afterAll(() => lookup.mockRestore());
afterEach(() => {
  answers = {};
});

const PUBLIC = '93.184.216.34';
const register = (body: object, token = key) => t.call('POST', '/api/dev/webhooks', { token, body });

async function hook(events = ['app.approved'], token = key) {
  answers['hooks.example'] = PUBLIC;
  const response = await register({ url: 'https://hooks.example/marketplace', events }, token);
  expect(response.status).toBe(201);
  return response.body;
}

describe('registration', () => {
  test('returns the endpoint and its secret once; reads never show the secret', async () => {
    answers['hooks.example'] = PUBLIC;
    const created = await register({ url: 'https://hooks.example/in', events: ['app.approved', 'review.created'], description: 'Prod receiver' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: 'https://hooks.example/in',
      events: ['app.approved', 'review.created'],
      description: 'Prod receiver',
      enabled: true,
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await t.call('GET', `/api/dev/webhooks/${created.body.id}`, { token: key });
    expect(read.status).toBe(200);
    const { secret: _secret, ...view } = created.body;
    expect(read.body).toEqual(view);
    const list = await t.call('GET', '/api/dev/webhooks', { token: key });
    expect(list.body.data.find((row: { id: string }) => row.id === created.body.id)).toEqual(view);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
  });

  test('the secret is stored sealed: the database alone does not give it away', async () => {
    const created = await hook();
    const [row] = await t.sql('select secret_sealed from webhook_endpoints where id = ?', [created.id]);
    const raw = created.secret.slice('whsec_'.length);
    expect(row.secret_sealed).not.toContain(raw);
    expect(row.secret_sealed).not.toContain(Buffer.from(raw, 'base64').toString('hex'));
    expect(row.secret_sealed).toStartWith('v1.dev.');
    const keys = t.ctx.config.webhookEncryptionKeys;
    expect(open(keys, row.secret_sealed, `webhook:${created.id}`)).toBe(created.secret);
    // Another key, or the sealed value copied to another endpoint's row, opens nothing.
    const otherKeys = loadConfig({ WEBHOOK_ENCRYPTION_KEYS: `dev:${Buffer.alloc(32, 1).toString('base64')}` }).webhookEncryptionKeys;
    expect(() => open(otherKeys, row.secret_sealed, `webhook:${created.id}`)).toThrow();
    expect(() => open(keys, row.secret_sealed, `webhook:${crypto.randomUUID()}`)).toThrow();
    // Keys rotate: a value sealed under an older key still opens while that key is listed.
    const rotatedKeys = [{ id: 'k2', key: new Uint8Array(Buffer.alloc(32, 2)) }, ...keys];
    expect(open(rotatedKeys, row.secret_sealed, `webhook:${created.id}`)).toBe(created.secret);
    expect(seal(rotatedKeys, 'x', 'c')).toStartWith('v1.k2.');
  });

  test.each([
    ['no events', { url: 'https://hooks.example/a', events: [] }],
    ['an unknown event', { url: 'https://hooks.example/a', events: ['app.deleted'] }],
    ['a repeated event', { url: 'https://hooks.example/a', events: ['app.approved', 'app.approved'] }],
    ['ping as a subscription', { url: 'https://hooks.example/a', events: ['ping'] }],
    ['a non-http URL', { url: 'ftp://hooks.example/a', events: ['app.approved'] }],
    ['a relative URL', { url: '/hooks', events: ['app.approved'] }],
    ['credentials in the URL', { url: 'https://user:pass@hooks.example/a', events: ['app.approved'] }],
    ['a control character in the description', { url: 'https://hooks.example/a', events: ['app.approved'], description: 'a\u0007b' }],
    ['a description over 200 characters', { url: 'https://hooks.example/a', events: ['app.approved'], description: 'x'.repeat(201) }],
    ['an unknown field', { url: 'https://hooks.example/a', events: ['app.approved'], secret: 'whsec_mine' }],
  ])('400 VALIDATION_FAILED for %s, and nothing stored', async (_label, body) => {
    answers['hooks.example'] = PUBLIC;
    const before = await t.sql('select count(*)::int as n from webhook_endpoints');
    const response = await register(body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('VALIDATION_FAILED');
    expect(await t.sql('select count(*)::int as n from webhook_endpoints')).toEqual(before);
  });

  test.each([
    ['loopback', 'http://127.0.0.1/hook', 'blocked address'],
    ['localhost', 'http://localhost/hook', 'blocked address'],
    ['a private network', 'http://10.1.2.3/hook', 'blocked address'],
    ['the cloud metadata service', 'http://169.254.169.254/latest', 'blocked address'],
    ['IPv6 loopback', 'http://[::1]/hook', 'blocked address'],
    ['a name resolving to a private address', 'https://internal.example/hook', 'blocked address'],
    ['a non-standard port', 'https://hooks.example:8443/hook', 'port not allowed'],
    ['a name that does not resolve', 'https://nowhere.invalid/hook', 'dns lookup failed'],
  ])('refuses %s (the SSRF guard at registration)', async (_label, url, reason) => {
    answers['hooks.example'] = PUBLIC;
    answers['internal.example'] = '192.168.1.10';
    const response = await register({ url, events: ['app.approved'] });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'url', message: `is refused: ${reason}` }]);
  });

  test('https only in production', async () => {
    answers['hooks.example'] = PUBLIC;
    const production = createWebhookUrlPolicy({ env: 'production', allowPrivateFetch: false });
    await expect(production('http://hooks.example/a')).rejects.toMatchObject({
      status: 400,
      errors: [{ path: 'url', message: 'must be an https:// URL' }],
    });
    await production('https://hooks.example/a');
    // Elsewhere http is fine (the service's own tests use it).
    expect((await register({ url: 'http://hooks.example/a', events: ['app.approved'] })).status).toBe(201);
  });

  test('at most 10 endpoints per developer, even when registered at once', async () => {
    const developer = await registerDeveloper(t);
    answers['hooks.example'] = PUBLIC;
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => register({ url: `https://hooks.example/${i}`, events: ['app.approved'] }, developer.oauthToken)),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(10);
    const refused = responses.filter((response) => response.status !== 201);
    expect(refused.map((response) => [response.status, response.body.code])).toEqual([
      [409, 'LIMIT_EXCEEDED'],
      [409, 'LIMIT_EXCEEDED'],
    ]);
    const [{ n }] = await t.sql('select count(*)::int as n from webhook_endpoints where developer_id = ?', [developer.id]);
    expect(n).toBe(10);
    // Deleting one makes room.
    const [first] = (await t.call('GET', '/api/dev/webhooks', { token: developer.oauthToken })).body.data;
    expect((await t.call('DELETE', `/api/dev/webhooks/${first.id}`, { token: developer.oauthToken })).status).toBe(200);
    expect((await register({ url: 'https://hooks.example/again', events: ['app.approved'] }, developer.oauthToken)).status).toBe(201);
  });
});

describe('who may manage endpoints', () => {
  test('the OAuth token or a key with APP_UPDATE; a key without it is 403, no credential 401', async () => {
    answers['hooks.example'] = PUBLIC;
    const body = { url: 'https://hooks.example/auth', events: ['app.approved'] };
    expect((await register(body, dev.oauthToken)).status).toBe(201);
    expect((await register(body, await mintKey(t, dev, ['APP_UPDATE']))).status).toBe(201);
    const readOnly = await mintKey(t, dev, ['APP_READ', 'APP_CREATE']);
    for (const [method, path] of [
      ['POST', '/api/dev/webhooks'],
      ['GET', '/api/dev/webhooks'],
    ] as const) {
      const response = await t.call(method, path, { token: readOnly, body: method === 'POST' ? body : undefined });
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
    }
    const anonymous = await t.call('GET', '/api/dev/webhooks');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
  });

  test('an unverified or suspended developer registers no endpoint and sends no ping or redelivery (403, like keys)', async () => {
    answers['hooks.example'] = PUBLIC;
    const body = { url: 'https://hooks.example/unverified', events: ['app.approved'] };
    const count = async () => (await t.sql('select count(*)::int as n from webhook_endpoints'))[0].n;
    const deliveries = async () => (await t.sql('select count(*)::int as n from webhook_deliveries'))[0].n;

    const unverified = await registerDeveloper(t, { verified: false });
    const before = await count();
    const refused = await register(body, unverified.oauthToken);
    expect([refused.status, refused.body.code]).toEqual([403, 'DEVELOPER_NOT_VERIFIED']);
    expect(await count()).toBe(before);

    // Endpoints registered while verified stay, but nothing is sent on request once suspended.
    const suspended = await registerDeveloper(t);
    const endpoint = await hook(['app.approved'], suspended.oauthToken);
    const pinged = await t.call('POST', `/api/dev/webhooks/${endpoint.id}/test`, { token: suspended.oauthToken });
    expect(pinged.status).toBe(201);
    await transitionDeveloper({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs }, suspended.id, 'suspend', CLI_ACTOR);
    const sent = await deliveries();
    for (const [path, what] of [
      [`/api/dev/webhooks/${endpoint.id}/test`, 'ping'],
      [`/api/dev/webhooks/${endpoint.id}/deliveries/${pinged.body.id}/redeliver`, 'redelivery'],
      ['/api/dev/webhooks', 'registration'],
    ] as const) {
      const response = await t.call('POST', path, { token: suspended.oauthToken, body: what === 'registration' ? body : undefined });
      expect({ what, status: response.status, code: response.body.code }).toEqual({ what, status: 403, code: 'DEVELOPER_SUSPENDED' });
    }
    expect(await deliveries()).toBe(sent);
    expect((await t.sql('select count(*)::int as n from webhook_endpoints where developer_id = ?', [suspended.id]))[0].n).toBe(1);
  });

  test("another developer's endpoint, deliveries and redeliveries are 404 and stay untouched", async () => {
    const mine = await hook(['app.approved']);
    const other = await registerDeveloper(t);
    const otherKey = await mintKey(t, other);
    const theirs = await hook(['app.approved'], otherKey);
    const [ownRow] = await t.sql('select * from webhook_endpoints where id = ?', [mine.id]);
    // A delivery of my endpoint, to name in the requests below.
    const eventId = crypto.randomUUID();
    const deliveryId = crypto.randomUUID();
    await t.sql(`insert into webhook_events (id, developer_id, type, body, created_at) values (?, ?, 'ping', '{}', now())`, [eventId, dev.id]);
    await t.sql(
      `insert into webhook_deliveries (id, endpoint_id, event_id, status, attempts, retries, created_at, updated_at)
       values (?, ?, ?, 'failed', 1, false, now(), now())`,
      [deliveryId, mine.id, eventId],
    );

    for (const [method, path, body] of [
      ['GET', `/api/dev/webhooks/${mine.id}`, undefined],
      ['PUT', `/api/dev/webhooks/${mine.id}`, { enabled: false }],
      ['DELETE', `/api/dev/webhooks/${mine.id}`, undefined],
      ['POST', `/api/dev/webhooks/${mine.id}/rotate-secret`, undefined],
      ['POST', `/api/dev/webhooks/${mine.id}/test`, undefined],
      ['GET', `/api/dev/webhooks/${mine.id}/deliveries`, undefined],
      ['POST', `/api/dev/webhooks/${mine.id}/deliveries/${deliveryId}/redeliver`, undefined],
      // Their own endpoint with my delivery's id.
      ['POST', `/api/dev/webhooks/${theirs.id}/deliveries/${deliveryId}/redeliver`, undefined],
    ] as const) {
      for (const token of [otherKey, other.oauthToken]) {
        const response = await t.call(method, path, { token, body });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.body.code).toBe('NOT_FOUND');
      }
    }
    expect((await t.call('GET', '/api/dev/webhooks', { token: otherKey })).body.data.map((row: { id: string }) => row.id)).toEqual([theirs.id]);
    expect((await t.sql('select * from webhook_endpoints where id = ?', [mine.id]))[0]).toEqual(ownRow);
    expect((await t.sql('select status, attempts from webhook_deliveries where id = ?', [deliveryId]))[0]).toEqual({ status: 'failed', attempts: 1 });
    expect(await t.sql(`select 1 from webhook_deliveries where endpoint_id = ? and id <> ?`, [mine.id, deliveryId])).toEqual([]);
  });
});

describe('changing endpoints', () => {
  test('PUT changes only what it names; null clears the description; DELETE returns the endpoint and removes its deliveries', async () => {
    answers['hooks.example'] = PUBLIC;
    const created = (await register({ url: 'https://hooks.example/put', events: ['app.approved'], description: 'first' })).body;
    const renamed = await t.call('PUT', `/api/dev/webhooks/${created.id}`, { token: key, body: { events: ['app.rejected', 'app.approved'] } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ url: created.url, description: 'first', events: ['app.rejected', 'app.approved'], enabled: true });
    const cleared = await t.call('PUT', `/api/dev/webhooks/${created.id}`, {
      token: key,
      body: { description: null, url: 'https://hooks.example/moved' },
    });
    expect(cleared.body).toMatchObject({ description: null, url: 'https://hooks.example/moved' });
    const refused = await t.call('PUT', `/api/dev/webhooks/${created.id}`, { token: key, body: { url: 'http://127.0.0.1/x' } });
    expect(refused.status).toBe(400);
    expect((await t.call('GET', `/api/dev/webhooks/${created.id}`, { token: key })).body.url).toBe('https://hooks.example/moved');

    const pinged = await t.call('POST', `/api/dev/webhooks/${created.id}/test`, { token: key });
    expect(pinged.status).toBe(201);
    const deleted = await t.call('DELETE', `/api/dev/webhooks/${created.id}`, { token: key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: created.id, url: 'https://hooks.example/moved' });
    expect(await t.sql('select 1 from webhook_deliveries where id = ?', [pinged.body.id])).toEqual([]);
    expect((await t.call('GET', `/api/dev/webhooks/${created.id}`, { token: key })).status).toBe(404);
  });
});

describe('deleting while a worker holds a delivery', () => {
  test('the DELETE waits for the attempt (its delivery, then its endpoint) and answers 200, never a deadlock', async () => {
    answers['hooks.example'] = PUBLIC;
    const created = (await register({ url: 'https://hooks.example/race', events: ['app.approved'] })).body;
    const pinged = await t.call('POST', `/api/dev/webhooks/${created.id}/test`, { token: key });
    expect(pinged.status).toBe(201);
    // A worker recording a failed attempt, as `record` does: the delivery's row, then the endpoint's.
    const worker = new pg.Client({ connectionString: t.runtime.databaseUrl });
    await worker.connect();
    try {
      await worker.query('begin');
      await worker.query('update webhook_deliveries set updated_at = now() where id = $1', [pinged.body.id]);
      const deleting = t.call('DELETE', `/api/dev/webhooks/${created.id}`, { token: key });
      // The DELETE's transaction waits for the worker's lock (the app's own delivery worker may be waiting too).
      await eventually(async () => {
        const [waiting] = await t.sql<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and (query ilike 'delete%' or query ilike '%for update%')`,
        );
        return waiting!.n > 0;
      });
      await worker.query('update webhook_endpoints set failing_since = coalesce(failing_since, now()) where id = $1', [created.id]);
      await worker.query('commit');
      const deleted = await deleting;
      expect(deleted.status).toBe(200);
      expect(await t.sql('select 1 from webhook_deliveries where id = ?', [pinged.body.id])).toEqual([]);
    } finally {
      await worker.end();
    }
  });

  test("another developer's DELETE answers 404 at once, taking no lock on the endpoint's deliveries", async () => {
    answers['hooks.example'] = PUBLIC;
    const created = (await register({ url: 'https://hooks.example/locked', events: ['app.approved'] })).body;
    const pinged = await t.call('POST', `/api/dev/webhooks/${created.id}/test`, { token: key });
    const otherKey = await mintKey(t, await registerDeveloper(t));
    const worker = new pg.Client({ connectionString: t.runtime.databaseUrl });
    await worker.connect();
    try {
      await worker.query('begin');
      await worker.query('update webhook_deliveries set updated_at = now() where id = $1', [pinged.body.id]);
      // Answered while the worker still holds its delivery's row: a request that queued for it would wait here.
      expect((await t.call('DELETE', `/api/dev/webhooks/${created.id}`, { token: otherKey })).status).toBe(404);
      await worker.query('commit');
    } finally {
      await worker.end();
    }
    expect((await t.call('GET', `/api/dev/webhooks/${created.id}`, { token: key })).status).toBe(200);
  });
});

describe('the SSRF guard at delivery', () => {
  test('a name that resolved to a public address at registration and to a private one now is not connected to', async () => {
    answers['rebind.example'] = PUBLIC;
    const created = await register({ url: 'http://rebind.example/hook', events: ['app.approved'] });
    expect(created.status).toBe(201);
    answers['rebind.example'] = '127.0.0.1';
    const pinged = await t.call('POST', `/api/dev/webhooks/${created.body.id}/test`, { token: key });
    const failed = await eventually(async () => {
      const [row] = (await t.call('GET', `/api/dev/webhooks/${created.body.id}/deliveries`, { token: key })).body.data;
      return row?.status === 'failed' && row;
    });
    expect(failed).toMatchObject({ id: pinged.body.id, error: 'blocked address', statusCode: null, attempt: 1 });
  });
});
