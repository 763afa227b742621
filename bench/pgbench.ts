import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The install yardstick: pgbench running the install's own single-row INSERT (an app looked up,
 * a new installer, `ON CONFLICT DO NOTHING`) into the real `installs` table, 32 clients. Its rows
 * are removed afterwards so the catalogue's counters are not affected.
 */
export async function pgbenchInstalls(databaseUrl: string, seconds: number, apps: number, clients = 32): Promise<{ tps: number; latencyMs: number }> {
  const psql = (sql: string) => {
    const result = Bun.spawnSync(['psql', databaseUrl, '-v', 'ON_ERROR_STOP=1', '-qc', sql]);
    if (result.exitCode !== 0) throw new Error(`psql failed: ${result.stderr.toString()}`);
  };
  psql(`create table if not exists bench_app_ids as select row_number() over (order by id)::int as n, id from apps;
        create unique index if not exists bench_app_ids_n on bench_app_ids (n)`);
  const script = join(mkdtempSync(join(tmpdir(), 'marketplace-pgbench-')), 'install.sql');
  writeFileSync(
    script,
    `\\set n random(1, ${apps})
insert into installs (app_id, installer, counted)
select id, 'pgbench:' || gen_random_uuid(), true from bench_app_ids where n = :n
on conflict (app_id, installer) do nothing;
`,
  );
  const run = Bun.spawnSync(['pgbench', '-n', '-c', String(clients), '-j', '2', '-T', String(seconds), '-f', script, databaseUrl]);
  const output = run.stdout.toString();
  psql(`delete from installs where installer like 'pgbench:%'; drop table bench_app_ids`);
  const tps = output.match(/tps = ([\d.]+)/);
  const latency = output.match(/latency average = ([\d.]+) ms/);
  if (run.exitCode !== 0 || !tps) throw new Error(`pgbench failed: ${run.stderr.toString()}${output}`);
  return { tps: Number(tps[1]), latencyMs: Number(latency?.[1] ?? 0) };
}
