import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../support/harness.ts';
import { insertApp, insertDeveloper } from '../support/fixtures.ts';
import { recordInstalls } from '../../src/modules/installs/installs.service.ts';
import { recordUninstall } from '../../src/modules/installs/uninstalls.service.ts';
import { INSTALLS_ROLL_UP_QUEUE } from '../../src/modules/stats/stats.service.ts';
import type { JobQueue } from '../../src/lib/job-queue.ts';
import type { SqlWriter } from '../../src/lib/sql-writer.ts';
import type { CompiledSql } from '../../src/lib/named-sql.ts';
import { Client } from 'pg';

/**
 * Concurrent installs are committed together in batches (group commit). Each request still gets
 * its own answer: refusals stay refusals, repeats report the first install, and every 201 is a row.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ TRUSTED_PROXIES: '127.0.0.1/32' });
});
afterAll(() => t.close());

test('a crowd of mixed installs: each answered as if alone, every 201 stored, repeats report the first time', async () => {
  const developer = await insertDeveloper(t);
  const apps = await Promise.all([1, 2, 3].map((n) => insertApp(t, { developerId: developer, name: `Crowd App ${n}` })));
  const draft = await insertApp(t, { developerId: developer, status: 'DRAFT' });
  const suspended = await insertApp(t, { developerId: developer, status: 'SUSPENDED' });
  const requests = [
    ...Array.from({ length: 60 }, (_, i) => ({
      slug: apps[i % 3]!.slug,
      body: { installationId: `crowd-${i}` },
      from: `198.51.100.${i}`,
      expect: 201,
    })),
    // The same installer twice in the same crowd.
    ...[0, 1].map(() => ({ slug: apps[0]!.slug, body: { installationId: 'twice' }, from: '203.0.113.1', expect: 201 })),
    ...Array.from({ length: 5 }, (_, i) => ({ slug: draft.slug, body: { installationId: `d-${i}` }, from: '203.0.113.2', expect: 404 })),
    ...Array.from({ length: 5 }, (_, i) => ({ slug: suspended.slug, body: { installationId: `s-${i}` }, from: '203.0.113.3', expect: 410 })),
    ...Array.from({ length: 5 }, (_, i) => ({ slug: 'no-such-app', body: { installationId: `n-${i}` }, from: '203.0.113.4', expect: 404 })),
  ];
  const responses = await Promise.all(
    requests.map((r) => t.call('POST', `/api/apps/${r.slug}/install`, { body: r.body, headers: { 'x-forwarded-for': r.from } })),
  );
  expect(responses.map((r) => r.status)).toEqual(requests.map((r) => r.expect));
  const twice = responses.filter((_, i) => requests[i]!.body.installationId === 'twice');
  expect(twice[0]!.body.installedAt).toBe(twice[1]!.body.installedAt);
  const [row] = await t.sql<{ n: number }>('select count(*)::int as n from installs where app_id in (?)', [apps.map((a) => a.id)]);
  expect(row!.n).toBe(61);
  const refused = await t.sql<{ n: number }>('select count(*)::int as n from installs where app_id in (?)', [[draft.id, suspended.id]]);
  expect(refused[0]!.n).toBe(0);
});

describe('the installs roll-up job', () => {
  // No workers here: a job stays waiting until the test moves it on.
  let api: TestApp;
  beforeAll(async () => {
    api = await createTestApp({}, { role: 'api' });
  });
  afterAll(() => api.close());

  /** The service's job queue, counting the installs' roll-ups sent through it. */
  const countingSends = () => {
    const counted = { sends: 0 };
    const jobs: JobQueue = {
      ...api.ctx.jobs,
      send: (target, queue, data, options) => {
        if (queue.name === INSTALLS_ROLL_UP_QUEUE) counted.sends += 1;
        return api.ctx.jobs.send(target, queue, data, options);
      },
    };
    return { jobs, counted };
  };
  const waitingJobs = async () =>
    (await api.sql<{ n: number }>("select count(*)::int as n from pgboss.job where name = ? and state = 'created'", [INSTALLS_ROLL_UP_QUEUE]))[0]!.n;
  const dropWaitingJobs = () => api.sql("delete from pgboss.job where name = ? and state = 'created'", [INSTALLS_ROLL_UP_QUEUE]);

  test('a batch sends it only when none is waiting (D189), and one that has started does not count as waiting', async () => {
    const app = await insertApp(api, { developerId: await insertDeveloper(api) });
    const { jobs, counted } = countingSends();
    const install = (n: number) =>
      recordInstalls(api.ctx.installWriter, jobs, [{ slug: app.slug, installer: { kind: 'user', platformUserId: `waiting-${n}` } }]);
    await dropWaitingJobs();

    await install(1);
    expect([counted.sends, await waitingJobs()]).toEqual([1, 1]);
    await install(2);
    expect([counted.sends, await waitingJobs()]).toEqual([1, 1]);
    // A worker has taken the job: it may already have read the watermark, so the next batch needs a job of its own.
    await api.sql("update pgboss.job set state = 'active', started_on = now() where name = ? and state = 'created'", [INSTALLS_ROLL_UP_QUEUE]);
    await install(3);
    expect([counted.sends, await waitingJobs()]).toEqual([2, 1]);
    // A batch of apps that are not public inserts nothing and sends nothing.
    await dropWaitingJobs();
    await recordInstalls(api.ctx.installWriter, jobs, [{ slug: 'no-such-app', installer: { kind: 'user', platformUserId: 'nobody' } }]);
    expect([counted.sends, await waitingJobs()]).toEqual([2, 0]);
  });

  test('a batch is one statement on its own while a roll-up waits; one that must send it, or may reactivate, has its transaction (D222)', async () => {
    const app = await insertApp(api, { developerId: await insertDeveloper(api) });
    const { jobs } = countingSends();
    const used = { statements: 0, transactions: 0 };
    // Refusing a batch is an answer, not an error: a statement that failed would be an ERROR in PostgreSQL's log under load.
    let failedStatements = 0;
    const writer: SqlWriter = {
      query: <Row>(statement: CompiledSql) => {
        used.statements += 1;
        return api.ctx.installWriter.query<Row>(statement).catch((error: unknown) => {
          failedStatements += 1;
          throw error;
        });
      },
      transaction: (work) => {
        used.transactions += 1;
        return api.ctx.installWriter.transaction(work);
      },
    };
    const installer = (n: number) => ({ kind: 'installation' as const, installationId: `alone-${n}`, network: '192.0.2.0/24' });
    const install = async (n: number) => {
      Object.assign(used, { statements: 0, transactions: 0 });
      const [outcome] = await recordInstalls(writer, jobs, [{ slug: app.slug, installer: installer(n) }]);
      expect(outcome!.ok).toBe(true);
      return { ...used, waiting: await waitingJobs() };
    };
    await dropWaitingJobs();

    // None waits: the lone statement writes nothing, and the transaction sends one with the install.
    expect(await install(1)).toEqual({ statements: 1, transactions: 1, waiting: 1 });
    // One waits: a single statement, no transaction.
    expect(await install(2)).toEqual({ statements: 1, transactions: 0, waiting: 1 });
    // A repeat of an installer who uninstalled reactivates it, in a transaction.
    await recordUninstall(api.ctx.installWriter, jobs, app.slug, installer(2));
    expect(await install(2)).toEqual({ statements: 1, transactions: 1, waiting: 1 });
    const events = await api.sql<{ kind: string }>('select kind from install_events where app_id = ? order by seq', [app.id]);
    expect(events.map((event) => event.kind)).toEqual(['UNINSTALL', 'REINSTALL']);
    expect(await api.sql('select count(*)::int as n from installs where app_id = ?', [app.id])).toEqual([{ n: 2 }]);
    expect(failedStatements).toBe(0);
  });

  test('an uninstall sends it only when none is waiting either (D216)', async () => {
    const app = await insertApp(api, { developerId: await insertDeveloper(api) });
    const { jobs, counted } = countingSends();
    const installer = (n: number) => ({ kind: 'installation' as const, installationId: `leaving-${n}`, network: '192.0.2.0/24' });
    for (const n of [1, 2]) {
      const [outcome] = await recordInstalls(api.ctx.installWriter, jobs, [{ slug: app.slug, installer: installer(n) }]);
      expect(outcome!.ok).toBe(true);
    }
    await dropWaitingJobs();
    counted.sends = 0;

    await recordUninstall(api.ctx.installWriter, jobs, app.slug, installer(1));
    expect([counted.sends, await waitingJobs()]).toEqual([1, 1]);
    // One waits: the next uninstall leaves it to count this one too.
    await recordUninstall(api.ctx.installWriter, jobs, app.slug, installer(2));
    expect([counted.sends, await waitingJobs()]).toEqual([1, 1]);
    expect(await api.sql("select count(*)::int as n from install_events where app_id = ? and kind = 'UNINSTALL'", [app.id])).toEqual([{ n: 2 }]);
  });
});

test("an install batch's statement runs on its generic plan from the first call: not planned again per batch (D193)", async () => {
  const app = await insertApp(t, { developerId: await insertDeveloper(t) });
  // A session of its own, whose nested plans auto_explain hands back as notices.
  const session = new Client(t.runtime.databaseUrl);
  await session.connect();
  try {
    const plans: string[] = [];
    session.on('notice', (notice) => plans.push(notice.message ?? ''));
    for (const setting of [
      "load 'auto_explain'",
      'set auto_explain.log_min_duration = 0',
      'set auto_explain.log_nested_statements = on',
      'set auto_explain.log_verbose = on',
      "set auto_explain.log_level = 'notice'",
      "set client_min_messages = 'notice'",
    ])
      await session.query(setting);
    await session.query(
      `select * from record_installs(array[$1], array['installation:generic-plan'], array[false], array[null]::text[], array['2001:db8:9::/64'], 3)`,
      [app.slug],
    );
    const batch = plans.find((plan) => plan.includes('with input as'));
    // A generic plan reads the function's arguments as parameters; a custom one has their values written in.
    expect(batch).toContain('Function Call: unnest($1), unnest($2), unnest($3), unnest($4), unnest($5)');
  } finally {
    await session.end();
  }
});

test('an install writes only the indexes a statement reads installs by (D223)', async () => {
  const indexes = await t.sql<{ name: string }>("select indexname as name from pg_indexes where tablename = 'installs' order by indexname");
  // Each one is written by every install: the installer's unique key, the budget's, the dashboard's time range (BRIN), the roll-ups' ids.
  expect(indexes.map((index) => index.name)).toEqual([
    'installs_app_installer_key',
    'installs_budget_idx',
    'installs_installed_at_brin',
    'installs_pkey',
  ]);
});
