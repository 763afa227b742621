import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createCatalogueReaders } from '../../src/db/read-pools.ts';
import { isDatabaseUnavailable } from '../../src/lib/database-errors.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { namedSql } from '../../src/lib/named-sql.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';

/**
 * The catalogue's read pools (Bun's client, D200) fail as the rest of the service expects of a
 * database: the SQLSTATE in `code` (so a statement timeout is 503, not 500), a lost or refused
 * connection as unavailable; and they bind arrays as `pg` did.
 */
let t: TestApp;
const logger = createLogger('silent');

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const readersOn = (url: string, statementTimeoutMs = 10_000) =>
  createCatalogueReaders(url, [], { max: 1, waitMs: 1_000, statementTimeoutMs }, logger);

/** What a read rejected with. */
async function failureOf(read: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await read;
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('the read succeeded');
}

test('a statement past statement_timeout fails with SQLSTATE 57014, and the pool goes on reading', async () => {
  const readers = readersOn(t.runtime.databaseUrl, 100);
  try {
    const failure = await failureOf(readers.next().query(namedSql('select pg_sleep(2)', {})));
    expect(failure.code).toBe('57014');
    expect(isDatabaseUnavailable(failure)).toBe(false);
    expect(await readers.next().query<{ one: number }>(namedSql('select 1 as one', {}))).toEqual([{ one: 1 }]);
  } finally {
    await readers.close();
  }
});

test("a wrong statement keeps PostgreSQL's SQLSTATE and is not an outage", async () => {
  const readers = readersOn(t.runtime.databaseUrl);
  try {
    const failure = await failureOf(readers.next().query(namedSql('select 1 / :zero::int', { zero: 0 })));
    expect(failure.code).toBe('22012');
    expect(isDatabaseUnavailable(failure)).toBe(false);
  } finally {
    await readers.close();
  }
});

test('a server that refuses connections is unavailable (08006), and so is a closed pool', async () => {
  const closedPort = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = closedPort.port;
  closedPort.stop(true);
  const refused = readersOn(`postgres://nobody@127.0.0.1:${port}/nothing`);
  try {
    const first = await failureOf(refused.next().query(namedSql('select 1', {})));
    expect(first.code).toBe('08006');
    expect(isDatabaseUnavailable(first)).toBe(true);
    // For a moment after, reads are told at once rather than queued behind more attempts.
    expect(await failureOf(refused.next().query(namedSql('select 1', {})))).toBe(first);
  } finally {
    await refused.close();
  }
  const closed = readersOn(t.runtime.databaseUrl);
  await closed.next().query(namedSql('select 1', {}));
  await closed.close();
  expect(isDatabaseUnavailable(await failureOf(closed.next().query(namedSql('select 1', {}))))).toBe(true);
});

test('arrays bind as PostgreSQL arrays, and the connection plans generically', async () => {
  const readers = readersOn(t.runtime.databaseUrl);
  try {
    const ids = ['00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002'];
    const [row] = await readers
      .next()
      .query<{ ids: string[]; flags: boolean[]; mode: string; name: string }>(
        namedSql(
          `select :ids::uuid[] as ids, :flags::boolean[] as flags, current_setting('plan_cache_mode') as mode, current_setting('application_name') as name`,
          { ids, flags: [true, false] },
        ),
      );
    expect(row).toEqual({ ids, flags: [true, false], mode: 'force_generic_plan', name: 'marketplace-catalogue-primary' });
  } finally {
    await readers.close();
  }
});

test('a statement is prepared once per connection and runs on its generic plan, whatever its values (D188)', async () => {
  const readers = readersOn(t.runtime.databaseUrl);
  try {
    const countBySlug = (slug: string) => readers.next().query(namedSql('select count(*)::int as n from apps where slug = :slug', { slug }));
    await countBySlug('first-slug');
    await countBySlug('second-slug');
    const prepared = await readers
      .next()
      .query<{ generic: string; custom: string }>(
        namedSql(
          `select generic_plans::text as generic, custom_plans::text as custom from pg_prepared_statements where statement like '%from apps where slug = $1%' and statement not like '%pg_prepared_statements%'`,
          {},
        ),
      );
    expect(prepared).toEqual([{ generic: '2', custom: '0' }]);
  } finally {
    await readers.close();
  }
});
