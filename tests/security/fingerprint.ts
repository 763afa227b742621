import pg from 'pg';
import type { TestApp } from '../support/harness.ts';

/**
 * SQL over a connection of the test's own, for tests that take fingerprints thousands of times:
 * each statement is prepared once (planning a digest cost more than running it), runs without
 * parallel workers (starting them for each digest cost more still) and never waits for the
 * service's pool. Same queries, same digests.
 */
export async function openFingerprintReader(t: TestApp): Promise<Pick<TestApp, 'sql'> & { close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: t.runtime.databaseUrl });
  await client.connect();
  await client.query('set max_parallel_workers_per_gather = 0');
  return {
    sql: async <T>(text: string) => (await client.query({ name: `fingerprint-${Bun.hash(text)}`, text })).rows as T[],
    close: () => client.end(),
  };
}

/**
 * A digest of every row of every table of the service (and of pg-boss's jobs), per table, so a
 * test can show that what it sent changed nothing at all. Columns that merely reading touches (a
 * key's last use, a session's last sight) are left out, and those recording which transaction last
 * changed a row (a change the test made and undid itself moves them); `ignore` leaves out more.
 */
const BOOKKEEPING: Record<string, string[]> = {
  api_keys: ['last_used_at'],
  admin_sessions: ['last_seen_at'],
  app_search: ['changed_xid'],
  app_stats: ['counted_xid'],
};

export async function databaseFingerprint(
  t: Pick<TestApp, 'sql'>,
  ignore: Record<string, string[]> = {},
  /** Only these tables (`schema.table`), for a test that fingerprints thousands of times. */
  only?: readonly string[],
): Promise<Record<string, string>> {
  const tables = only
    ? only.map((name) => ({ name }))
    : await t.sql<{ name: string }>(
        `select table_schema || '.' || table_name as name from information_schema.tables
         where table_type = 'BASE TABLE' and (table_schema = 'public' or (table_schema = 'pgboss' and table_name = 'job'))
         order by 1`,
      );
  const digests = tables.map(({ name }) => {
    const table = name.split('.')[1]!;
    const dropped = [...(BOOKKEEPING[table] ?? []), ...(ignore[table] ?? [])].map((column) => `'${column}'`).join(', ');
    const row = dropped ? `(to_jsonb(x) - array[${dropped}]::text[])::text` : 'to_jsonb(x)::text';
    return `select '${name}' as name, md5(coalesce(string_agg(${row}, '|' order by ${row}), '')) as digest from ${name} x`;
  });
  const rows = await t.sql<{ name: string; digest: string }>(digests.join(' union all '));
  return Object.fromEntries(rows.map((row) => [row.name, row.digest]));
}
