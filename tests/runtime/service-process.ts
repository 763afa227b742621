import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';

/**
 * The service as operators run it, in a process of its own (`bun src/main.ts [--role …]`), for
 * tests that kill or stop it. `env` adds to a test configuration on `databaseUrl`.
 */
export function spawnService<Log extends 'inherit' | 'pipe' = 'inherit'>(
  databaseUrl: string,
  options: { role?: 'all' | 'api' | 'worker'; env?: Record<string, string> /** 'pipe' to read the service's log lines. */; stderr?: Log } = {},
): Subprocess<'ignore', 'ignore', Log> {
  const role = options.role ?? 'all';
  return Bun.spawn(['bun', 'src/main.ts', '--role', role], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      APP_ENV: 'test',
      DATABASE_URL: databaseUrl,
      DATA_DIR: mkdtempSync(join(tmpdir(), `marketplace-${role}-`)),
      LOG_LEVEL: 'error',
      ...options.env,
    },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: options.stderr ?? ('inherit' as Log),
  });
}

/** Polls `check` every 100 ms until it returns something truthy; fails after `ms` naming `what`. */
export async function within<T>(ms: number, what: string, check: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await Bun.sleep(100);
  }
}

/** Waits until the service at `base` answers `/readyz` with 200 (20 s at most). */
export const untilReady = (base: string) =>
  within(
    20_000,
    `the service at ${base} becoming ready`,
    async () =>
      (await fetch(`${base}/readyz`).then(
        (r) => r.status,
        () => 0,
      )) === 200,
  );
