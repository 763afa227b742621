import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { cloneTestDatabase, createBlankDatabase } from '../support/database.ts';
import { approvedApp, completeApp } from '../apps/fixtures.ts';
import { createAdminAccount, signedIn } from '../console/support.ts';
import { databaseFingerprint } from '../security/fingerprint.ts';
import { assertSchemaCurrent } from '../../src/db/migrate.ts';
import { signedHeaders } from '../../src/modules/webhooks/webhook-secrets.ts';
import { findPgTools, serverMajor, type PgTools } from './pg-tools.ts';

/**
 * The backup and restore of docs/operations.md, tried once: a live service's database is dumped
 * with `pg_dump --format=custom`, restored with `pg_restore` into a new database, and a service
 * started on the copy finds every row, needs no migration, and works: the API key authenticates
 * (its HMAC secret is configuration, not data), the webhook secret opens (its encryption key
 * likewise), the admin signs in. pg_dump must be of the server's major version: the suite's own
 * server is used when such tools are found, else the machine's PostgreSQL on 127.0.0.1:5432.
 */
const MACHINE_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

interface Plan {
  tools: PgTools;
  source: string;
  target: string;
  cleanup: () => Promise<void>;
}

async function machineDatabases(tools: PgTools): Promise<Plan> {
  const names = ['source', 'target'].map((role) => `marketplace_backup_${role}_${process.pid}`);
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: MACHINE_SERVER });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  for (const name of names) {
    await admin(`drop database if exists ${name} with (force)`);
    await admin(`create database ${name}`);
  }
  const url = (name: string) => Object.assign(new URL(MACHINE_SERVER), { pathname: `/${name}` }).toString();
  return {
    tools,
    source: url(names[0]!),
    target: url(names[1]!),
    cleanup: async () => {
      for (const name of names) await admin(`drop database if exists ${name} with (force)`);
    },
  };
}

async function choosePlan(): Promise<Plan | string> {
  const source = await cloneTestDatabase();
  const suiteMajor = await serverMajor(source);
  const suiteTools = suiteMajor === null ? null : findPgTools(suiteMajor);
  // The suite's databases are dropped with the suite.
  if (suiteTools) return { tools: suiteTools, source, target: await createBlankDatabase(), cleanup: async () => {} };
  const machineMajor = await serverMajor(MACHINE_SERVER);
  const machineTools = machineMajor === null ? null : findPgTools(machineMajor);
  if (machineTools) return machineDatabases(machineTools);
  return `no pg_dump for PostgreSQL ${suiteMajor} (the suite's server) and no PostgreSQL with matching tools on 127.0.0.1:5432`;
}

const plan = await choosePlan();
const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
  if (typeof plan !== 'string') await plan.cleanup();
});
if (typeof plan === 'string') process.stderr.write(`backup/restore: skipped: ${plan}\n`);

async function run(command: string[]) {
  const child = Bun.spawn(command, { stdout: 'pipe', stderr: 'pipe' });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${command[0]} exited ${code}: ${stderr}`);
}

test.skipIf(typeof plan === 'string')(
  'pg_dump of a live service, pg_restore into a new database: every row, no migration, and it works',
  async () => {
    const { tools, source, target } = plan as Plan;
    const env = { ALLOW_PRIVATE_FETCH: 'true' };
    const live = await createTestApp({ ...env, DATABASE_URL: source }, { ownDatabase: true, role: 'api' });
    apps.push(live);

    // A little of everything: a developer and key, a live listing with an install and a review, a webhook, an admin.
    const developer = await registerDeveloper(live);
    const key = await mintKey(live, developer);
    const app = (await approvedApp(live, key, completeApp())) as { id: string; slug: string };
    const user = await live.token(`backup-user-${crypto.randomUUID()}`);
    expect((await live.call('POST', `/api/apps/${app.slug}/install`, { token: user, body: {} })).status).toBe(201);
    expect((await live.call('POST', `/api/apps/${app.slug}/reviews`, { token: user, body: { rating: 5, title: 'Kept' } })).status).toBe(201);
    const hook = await live.call('POST', '/api/dev/webhooks', { token: key, body: { url: 'http://127.0.0.1:9/hook', events: ['app.approved'] } });
    expect(hook.status).toBe(201);
    const admin = await createAdminAccount(live, 'owner');
    const before = await databaseFingerprint(live);
    const listing = (await live.call('GET', `/api/apps/${app.slug}`)).body;

    // The procedure (docs/operations.md), while the service runs.
    const file = join(mkdtempSync(join(tmpdir(), 'marketplace-backup-')), 'marketplace.dump');
    await run([tools.pgDump, '--format=custom', '--no-owner', '--no-privileges', `--file=${file}`, `--dbname=${source}`]);
    await run([tools.pgRestore, '--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--dbname=${target}`, file]);

    const restored = await createTestApp({ ...env, DATABASE_URL: target }, { ownDatabase: true, role: 'api' });
    apps.push(restored);
    expect(restored.runtime.appliedMigrations).toEqual([]);
    await assertSchemaCurrent(restored.ctx.orm);
    const after = await databaseFingerprint(restored);
    expect(after).toEqual(before);

    const me = await restored.call('GET', '/api/dev/me', { token: key });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(developer.id);
    expect((await restored.call('GET', `/api/apps/${app.slug}`)).body).toEqual(listing);
    const [endpoint] = await restored.sql('select secret_sealed from webhook_endpoints where id = ?', [hook.body.id]);
    const body = JSON.stringify({ type: 'ping' });
    const headers = signedHeaders(
      restored.ctx.config.webhookEncryptionKeys,
      { endpointId: hook.body.id, secretSealed: endpoint.secret_sealed, previousSecretSealed: null },
      'msg_restored',
      body,
    );
    expect(() => new Webhook(hook.body.secret).verify(body, headers)).not.toThrow();
    await signedIn(restored, admin);

    const [{ rows }] = await restored.sql(`select sum(n_live_tup)::int as rows from pg_stat_user_tables`);
    process.stderr.write(
      `backup/restore: pg_dump ${tools.major} → ${(statSync(file).size / 1024).toFixed(0)} KB dump; pg_restore into a new database: ` +
        `${Object.keys(after).length} tables identical (~${rows} rows), no migration pending; key, listing, webhook secret and admin sign-in work\n`,
    );
  },
  60_000,
);
