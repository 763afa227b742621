import { afterAll, beforeAll, expect, test } from 'bun:test';
import pg from 'pg';
import type { Subprocess } from 'bun';
import { freePort } from '../../src/db/embedded.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { startSmtpPeer, type SmtpPeer } from '../notifications/smtp-peer.ts';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp, completeApp, deps } from '../apps/fixtures.ts';
import { spawnService, untilReady, within } from './service-process.ts';
import { toApiError } from '../../src/http/lifecycle.ts';

/**
 * `bun src/main.ts` (API and workers in one process) gets SIGTERM while a request and a job are in
 * flight: it stops accepting connections at once, finishes both, and exits 0. The request is an
 * install held up by a lock this test holds (as a long roll-up would); the job is an e-mail that
 * the SMTP peer holds after its DATA.
 */
let peer: SmtpPeer;
let t: TestApp;
let service: Subprocess | undefined;

beforeAll(async () => {
  peer = await startSmtpPeer();
  // This process only prepares data: the spawned service serves the request and works the job.
  t = await createTestApp({ SMTP_URL: peer.url }, { role: 'api' });
});
afterAll(async () => {
  service?.kill('SIGKILL');
  await t.close();
  await peer.stop();
});

test('SIGTERM: new connections are refused, the in-flight request and job finish, and the process exits 0', async () => {
  const key = await mintKey(t, await registerDeveloper(t));
  const app = (await approvedApp(t, key, completeApp())) as { id: string; slug: string };
  const developer = await registerDeveloper(t, { verified: false });
  await t.sql(`update developers set email = 'graceful@example.com' where id = ?`, [developer.id]);

  const [port, metricsPort] = [await freePort(), await freePort()];
  service = spawnService(t.runtime.databaseUrl, {
    env: { PORT: String(port), METRICS_PORT: String(metricsPort), SMTP_URL: peer.url, RATE_LIMITS: 'off' },
  });
  const base = `http://127.0.0.1:${port}`;
  await untilReady(base);
  // Its metrics listener answers too, and only there.
  expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
  expect((await fetch(`${base}/metrics`)).status).toBe(404);

  // The job: the verification e-mail, held by SMTP after its DATA.
  const stall = peer.stallNext('graceful@example.com');
  await transitionDeveloper(deps(t), developer.id, 'verify', CLI_ACTOR);
  await Promise.race([stall.arrived, Bun.sleep(20_000).then(() => Promise.reject(new Error('the e-mail never reached SMTP')))]);

  // The request: an install waits for the installs roll-up's lock (installs take it shared), which this connection holds.
  const holder = new pg.Client({ connectionString: t.runtime.databaseUrl });
  await holder.connect();
  await holder.query(`select pg_advisory_lock(hashtext('install-roll-up'))`);
  const sentAt = Date.now();
  const install = fetch(`${base}/api/apps/${app.slug}/install`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ installationId: 'in-flight' }),
  });
  await within(
    10_000,
    'the install waiting for the lock',
    async () => (await t.sql(`select 1 from pg_locks where locktype = 'advisory' and not granted`)).length > 0,
  );

  const signalledAt = Date.now();
  service.kill('SIGTERM');
  await Bun.sleep(500);
  expect(service.exitCode).toBeNull(); // still finishing
  const refused = await fetch(`${base}/livez`).then(
    () => false,
    () => true,
  );
  expect(refused).toBe(true);

  await holder.query(`select pg_advisory_unlock(hashtext('install-roll-up'))`);
  await holder.end();
  const response = await install;
  const answeredAt = Date.now();
  expect(response.status).toBe(201);
  expect(service.exitCode).toBeNull(); // the e-mail is still in flight
  stall.release();

  const code = await Promise.race([service.exited, Bun.sleep(20_000).then(() => 'still running')]);
  const exitedAt = Date.now();
  expect(code).toBe(0);
  expect(await t.sql(`select 1 from installs where app_id = ? and installer = 'installation:in-flight'`, [app.id])).toHaveLength(1);
  const messageId = `developer-verified:${developer.id}`;
  expect(peer.received.filter((mail) => mail.messageId === messageId)).toHaveLength(1);
  expect(await t.sql('select transport from emails where message_id = ?', [messageId])).toEqual([{ transport: 'smtp' }]);
  expect(await t.sql(`select state from pgboss.job where name = 'mail.send' and singleton_key = ?`, [messageId])).toEqual([{ state: 'completed' }]);
  process.stderr.write(
    `graceful shutdown: SIGTERM with 1 request and 1 job in flight; new connections refused; request 201 after ${answeredAt - sentAt} ms; ` +
      `e-mail accepted and recorded; exit 0 ${exitedAt - signalledAt} ms after the signal\n`,
  );
}, 90_000);

/**
 * Public catalogue reads still queued when SIGTERM arrives (for the catalogue pool's one
 * connection, behind a table this test holds locked as a long migration would) finish before the
 * pools close: each is answered 200, or 503 with `Retry-After`, never 500. Their clients have hung
 * up, as a load generator's do when it stops, so the server has no connection left to wait for
 * and stops listening at once: the requests still run and must not meet a closed pool.
 */
test('SIGTERM: queued catalogue reads whose clients have gone drain before the pools close; none is answered 500', async () => {
  const key = await mintKey(t, await registerDeveloper(t));
  const slugs: string[] = [];
  for (let i = 0; i < 3; i += 1) slugs.push(((await approvedApp(t, key, completeApp())) as { slug: string }).slug);

  // This process's own catalogue connections, if any, are not the service's.
  const ownCatalogueConnections = (await t.sql(`select pid from pg_stat_activity where application_name like 'marketplace-catalogue-%'`)).map(
    (row) => row.pid as number,
  );
  const port = await freePort();
  const reader = spawnService(t.runtime.databaseUrl, {
    role: 'api',
    env: { PORT: String(port), RATE_LIMITS: 'off', CATALOGUE_POOL_MAX: '1', LOG_LEVEL: 'info' },
    stderr: 'pipe',
  });
  const log = new Response(reader.stderr).text();
  try {
    const base = `http://127.0.0.1:${port}`;
    await untilReady(base);
    // Every read below misses the cache and reads the apps table, which this transaction holds.
    const holder = new pg.Client({ connectionString: t.runtime.databaseUrl });
    await holder.connect();
    await holder.query('begin');
    await holder.query('lock table apps in access exclusive mode');
    const targets = Array.from({ length: 16 }, (_, i) => (i % 4 === 3 ? `/api/apps/${slugs[i % slugs.length]}` : `/api/apps?page=${i + 1}&limit=1`));
    const hangUp = new AbortController();
    const reads = targets.map((target) => fetch(`${base}${target}`, { signal: hangUp.signal }).catch(() => undefined));
    await within(
      10_000,
      'a catalogue read waiting for the lock',
      async () =>
        (await t.sql(`select 1 from pg_locks l join pg_class c on c.oid = l.relation where c.relname = 'apps' and not l.granted`)).length > 0,
    );
    hangUp.abort();
    await Promise.all(reads);
    reader.kill('SIGTERM');
    // The reads stay held until the shutdown would have closed the catalogue pools: their idle
    // connection (the version check's) gone. The drained shutdown keeps it, so that is awaited 3 s at most.
    await within(3_000, 'the idle catalogue connection closing', async () => {
      const idle = await t.sql(
        `select 1 from pg_stat_activity where application_name like 'marketplace-catalogue-%' and state = 'idle' and pid <> all(?)`,
        [ownCatalogueConnections],
      );
      return idle.length === 0;
    }).catch(() => undefined);
    await holder.query('rollback');
    await holder.end();
    const code = await Promise.race([reader.exited, Bun.sleep(30_000).then(() => 'still running')]);
    expect(code).toBe(0);
    // What each read was answered, though nobody was there to read it: the service's access log.
    const statuses = (await log)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; path?: string; status?: number })
      .filter((line) => line.msg === 'request' && line.path?.startsWith('/api/apps'))
      .map((line) => line.status);
    const tally: Record<string, number> = {};
    for (const status of statuses) tally[String(status)] = (tally[String(status)] ?? 0) + 1;
    process.stderr.write(`graceful shutdown: ${targets.length} queued catalogue reads from clients gone answered ${JSON.stringify(tally)}\n`);
    expect(statuses).toHaveLength(targets.length);
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
  } finally {
    reader.kill('SIGKILL');
  }
}, 90_000);

test('a request still running when the shutdown stops waiting and closes the pools is answered 503 with Retry-After, not 500', async () => {
  const pool = new pg.Pool({ connectionString: t.runtime.databaseUrl });
  await pool.end();
  const error = await pool.query('select 1').then(
    () => undefined,
    (failure: unknown) => failure,
  );
  const answer = toApiError('UNKNOWN', error);
  expect([answer.status, answer.code, answer.headers?.['retry-after']]).toEqual([503, 'UNAVAILABLE', '5']);
});
