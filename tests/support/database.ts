import pg from 'pg';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { createOrm } from '../../src/db/orm.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createBoss, declareQueues } from '../../jobs/queues.ts';
import { queues } from '../../jobs/registry.ts';

/**
 * One PostgreSQL for the whole run (embedded unless TEST_DATABASE_URL names a server), one
 * migrated template database, and a fresh clone of it for every test file, so files never
 * see each other's rows.
 */
const TEMPLATE = `marketplace_template_${process.pid}`;
const silent = createLogger('silent');

let serverUrl: ((database?: string) => string) | undefined;
let embedded: EmbeddedDatabase | undefined;
const created: string[] = [];

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl!('postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function startTestDatabase(testDatabaseUrl: string | undefined): Promise<void> {
  if (testDatabaseUrl) {
    serverUrl = (database = 'postgres') => withDatabase(testDatabaseUrl, database);
  } else {
    // Thrown away after the run: waiting for the disk at every commit would only slow the suite.
    embedded = await startEmbeddedPostgres(mkdtempSync(join(tmpdir(), 'marketplace-test-')), silent, {
      persistent: false,
      settings: { fsync: 'off' },
    });
    serverUrl = embedded.url;
  }
  await admin(async (client) => {
    await client.query(`drop database if exists ${TEMPLATE}`);
    await client.query(`create database ${TEMPLATE}`);
  });
  const url = serverUrl(TEMPLATE);
  const config = loadConfig({ APP_ENV: 'test', DATABASE_URL: url });
  const orm = await createOrm(url, silent, { ...config.database, poolMax: 2 });
  await migrate(orm);
  await orm.close();
  const boss = createBoss(url, silent, { supervise: false, migrate: true });
  await boss.start();
  // Every queue is a table of its own: created once here, each clone's start only checks them.
  await declareQueues(boss, queues, config.retention, silent);
  await boss.stop({ graceful: false });
}

async function newClone(): Promise<string> {
  const name = `marketplace_test_${process.pid}_${created.length + 1}_${Date.now() % 100_000}`;
  created.push(name);
  // wal_log: no checkpoint first (file_copy flushes every file's dirty pages before each copy).
  await admin((client) => client.query(`create database ${name} template ${TEMPLATE} strategy wal_log`));
  return serverUrl!(name);
}

/** The clone the next caller gets, made while the files before it run (a clone takes ~200 ms). */
let spare: Promise<string> | undefined;

/** A new database cloned from the migrated template (pg-boss's schema included). */
export async function cloneTestDatabase(): Promise<string> {
  const next = spare ?? newClone();
  spare = newClone();
  spare.catch(() => {});
  return next;
}

/** An empty database (no schema at all), for tests of migration and start-up refusal. */
export async function createBlankDatabase(): Promise<string> {
  const name = `marketplace_blank_${process.pid}_${created.length + 1}_${Date.now() % 100_000}`;
  await admin((client) => client.query(`create database ${name}`));
  created.push(name);
  return serverUrl!(name);
}

export async function dropTestDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  await admin((client) => client.query(`drop database if exists ${name} with (force)`));
}

export async function stopTestDatabase(): Promise<void> {
  // The spare clone is finished first, so it is dropped with the others.
  await spare?.catch(() => {});
  if (serverUrl) {
    await admin(async (client) => {
      for (const name of [...created, TEMPLATE]) await client.query(`drop database if exists ${name} with (force)`);
    }).catch(() => {});
  }
  await embedded?.stop();
}
