import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { createBlankDatabase, dropTestDatabase } from '../support/database.ts';
import { freePort } from '../../src/db/embedded.ts';
import { PRODUCTION_SETTINGS } from '../support/production.ts';

/** The real entry points as separate processes: what an operator runs. */
const databases: string[] = [];
afterAll(async () => {
  for (const url of databases) await dropTestDatabase(url);
});

async function blankDatabase() {
  const url = await createBlankDatabase();
  databases.push(url);
  return url;
}

const productionEnv = (databaseUrl: string, port = 0) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  ...PRODUCTION_SETTINGS,
  DATABASE_URL: databaseUrl,
  DATA_DIR: mkdtempSync(join(tmpdir(), 'marketplace-prod-')),
  PORT: String(port),
  LOG_LEVEL: 'warn',
});

async function run(args: string[], env: Record<string, string>) {
  const child = Bun.spawn(['bun', ...args], { env, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

describe('production start-up', () => {
  test('a process whose schema is behind refuses to start and says how to migrate', async () => {
    const url = await blankDatabase();
    const result = await run(['src/main.ts'], productionEnv(url));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('bun run db:migrate');
  }, 30_000);

  test('missing production settings stop the process with a message naming the variable', async () => {
    const { SMTP_URL: _removed, ...env } = productionEnv('postgres://x@127.0.0.1/x');
    const result = await run(['src/main.ts'], env);
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('SMTP_URL is required');
  }, 30_000);

  test('db:migrate is safe to run concurrently; then the server starts, is ready, and stops cleanly on SIGTERM', async () => {
    const url = await blankDatabase();
    const migrations = await Promise.all([1, 2].map(() => run(['src/cli/index.ts', 'db:migrate'], productionEnv(url))));
    for (const result of migrations) expect(result.code).toBe(0);
    expect(migrations.map((r) => r.stdout).join('')).toContain('Migration20261125000001_identity');

    const port = await freePort();
    const server = Bun.spawn(['bun', 'src/main.ts'], { env: productionEnv(url, port), stdout: 'ignore', stderr: 'pipe' });
    let ready = 0;
    for (let i = 0; i < 100 && ready !== 200; i++) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      if (ready !== 200) await Bun.sleep(100);
    }
    expect(ready).toBe(200);

    // A second server on the same port fails loudly instead of silently sharing the socket.
    const second = await run(['src/main.ts'], productionEnv(url, port));
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('address in use');
    expect((await fetch(`http://127.0.0.1:${port}/livez`)).status).toBe(200);

    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 60_000);

  test('WEB_CONCURRENCY=2 runs two API processes on one port; a second start on that port still fails', async () => {
    const url = await blankDatabase();
    expect((await run(['src/cli/index.ts', 'db:migrate'], productionEnv(url))).code).toBe(0);
    const port = await freePort();
    const env = { ...productionEnv(url, port), WEB_CONCURRENCY: '2' };
    const server = Bun.spawn(['bun', 'src/main.ts'], { env, stdout: 'ignore', stderr: 'pipe' });
    const childrenOf = (pid: number) =>
      readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .filter((name) => {
          try {
            const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
            return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
          } catch {
            return false;
          }
        })
        .map((name) => readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' '));
    let ready = 0;
    for (let i = 0; i < 150 && !(ready === 200 && childrenOf(server.pid).length === 1); i++) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      await Bun.sleep(100);
    }
    expect(ready).toBe(200);
    expect(childrenOf(server.pid)).toEqual([expect.stringContaining('--role api --shared-port')]);

    const second = await run(['src/main.ts'], env);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('address in use');

    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(childrenOf(server.pid)).toEqual([]);
  }, 60_000);
});
