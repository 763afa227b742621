import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createSqlPool, PooledSqlError } from '../../src/db/sql-pool.ts';
import { ApiError } from '../../src/http/problem.ts';
import { isDatabaseUnavailable } from '../../src/lib/database-errors.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { namedSql } from '../../src/lib/named-sql.ts';
import { installsRollUpJobs } from '../../src/modules/stats/stats.service.ts';
import { createTestApp, type HttpResult, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import pg from 'pg';

/**
 * Transactions on Bun's client (D214), which installs are written in: committed when the work
 * returns, rolled back when it throws (the caller's own error passing through as it is), a job
 * sent through the transaction committed or dropped with it, and a database error read as the
 * rest of the service reads one.
 */
let t: TestApp;
let pool: ReturnType<typeof createSqlPool>;

beforeAll(async () => {
  t = await createTestApp({}, { role: 'api' });
  pool = createSqlPool('test', t.runtime.databaseUrl, { max: 2, waitMs: 1_000, statementTimeoutMs: 10_000 }, createLogger('silent'));
  await t.sql('create table pool_writes (note text)');
});
afterAll(async () => {
  await pool.close();
  await t.close();
});

const notes = async () => (await t.sql<{ note: string }>('select note from pool_writes order by note')).map((row) => row.note);
const jobsNamed = async (key: string) =>
  (await t.sql('select id from pgboss.job where name = ? and singleton_key = ?', [installsRollUpJobs.name, key])).length;

test('a transaction commits its statements and the job sent through it together; a throw rolls back both', async () => {
  await pool.transaction(async (tx) => {
    await tx.query(namedSql('insert into pool_writes values (:note)', { note: 'kept' }));
    await t.ctx.jobs.send(tx, installsRollUpJobs, {}, { singletonKey: 'pool-kept' });
  });
  const refusal = new ApiError(404, 'NOT_FOUND', 'a domain error of the work');
  const thrown = await pool
    .transaction(async (tx) => {
      await tx.query(namedSql('insert into pool_writes values (:note)', { note: 'dropped' }));
      await t.ctx.jobs.send(tx, installsRollUpJobs, {}, { singletonKey: 'pool-dropped' });
      throw refusal;
    })
    .catch((error: unknown) => error);
  // The work's own error, not wrapped as a database one.
  expect(thrown).toBe(refusal);
  expect(await notes()).toEqual(['kept']);
  expect([await jobsNamed('pool-kept'), await jobsNamed('pool-dropped')]).toEqual([1, 0]);
});

test("a failed statement rolls the transaction back and keeps PostgreSQL's SQLSTATE; a lost connection is an outage", async () => {
  const failure = await pool
    .transaction(async (tx) => {
      await tx.query(namedSql('insert into pool_writes values (:note)', { note: 'before the error' }));
      await tx.query(namedSql('select 1 / :zero::int', { zero: 0 }));
    })
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(PooledSqlError);
  expect((failure as PooledSqlError).code).toBe('22012');
  expect(isDatabaseUnavailable(failure)).toBe(false);
  expect(await notes()).toEqual(['kept']);

  const terminated = await pool
    .transaction((tx) => tx.query(namedSql('select pg_terminate_backend(pg_backend_pid())', {})))
    .catch((error: unknown) => error);
  expect(isDatabaseUnavailable(terminated)).toBe(true);
  // The pool opens a new connection for the next transaction.
  expect(await pool.transaction((tx) => tx.query<{ one: number }>(namedSql('select 1 as one', {})))).toEqual([{ one: 1 }]);
});

/**
 * While the roll-up holds the installs watermark exclusively, `write` (a request) waits on a lock
 * where it can be seen: the pool of the waiting session whose statement is like `statement`; then
 * the lock is let go and the request's answer returned.
 */
async function poolWaitingBehindRollUp(write: () => Promise<HttpResult>, statement: string) {
  const rollUp = new pg.Client({ connectionString: t.runtime.databaseUrl });
  await rollUp.connect();
  try {
    await rollUp.query("select pg_advisory_lock(hashtext('install-roll-up'))");
    const answer = write();
    const waiting = await eventually(async () => {
      const rows = await t.sql<{ application_name: string }>(
        "select application_name from pg_stat_activity where wait_event_type = 'Lock' and query like ?",
        [`%${statement}%`],
      );
      return rows.length > 0 && rows;
    });
    await rollUp.query("select pg_advisory_unlock(hashtext('install-roll-up'))");
    return { pools: waiting.map((row) => row.application_name), answer: await answer };
  } finally {
    await rollUp.end();
  }
}

test("an install is written in its own pool's transaction, not the ORM's", async () => {
  const app = await insertApp(t, { developerId: await insertDeveloper(t) });
  const { pools, answer } = await poolWaitingBehindRollUp(
    () => t.call('POST', `/api/apps/${app.slug}/install`, { body: { installationId: 'seen-waiting' } }),
    'record_install_batch',
  );
  expect([pools, answer.status]).toEqual([['marketplace-installs'], 201]);
});

test("an uninstall is written in the installs' pool's transaction too, not the ORM's (D225)", async () => {
  const app = await insertApp(t, { developerId: await insertDeveloper(t) });
  const body = { installationId: 'leaving-seen-waiting' };
  expect((await t.call('POST', `/api/apps/${app.slug}/install`, { body })).status).toBe(201);
  // The uninstall's first statement takes the watermark's shared lock.
  const { pools, answer } = await poolWaitingBehindRollUp(
    () => t.call('POST', `/api/apps/${app.slug}/uninstall`, { body }),
    'pg_advisory_xact_lock_shared',
  );
  expect([pools, answer.status]).toEqual([['marketplace-installs'], 200]);
  expect(new Date(answer.body.uninstalledAt).toISOString()).toBe(answer.body.uninstalledAt);
});
