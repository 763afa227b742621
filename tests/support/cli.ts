import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestApp } from './harness.ts';

const root = join(import.meta.dir, '..', '..');

/** Runs `bun run cli …` from the repository with exactly `env`: its output and exit code. */
export async function spawnCli(args: string[], env: Record<string, string | undefined>) {
  const child = Bun.spawn(['bun', 'src/cli/index.ts', ...args], { cwd: root, env, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, exitCode };
}

/** Runs `bun run cli …` as an operator would, against the test app's database, in a data directory of its own. */
export function cliRunner(t: TestApp) {
  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-cli-'));
  return (...args: string[]) => spawnCli(args, { ...process.env, DATABASE_URL: t.runtime.databaseUrl, APP_ENV: 'test', DATA_DIR: dataDir });
}
