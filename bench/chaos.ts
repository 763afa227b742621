/**
 * `bun run bench:chaos`: public reads, installs and developer writes at 64 connections for 30 s,
 * with the database stopped in the middle and started again. It passes when no acknowledged
 * install is lost and nothing answered 500 (503 while the database is away is the contract).
 * `tests/bench/chaos.test.ts` runs a short version in `bun test`.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createLogger } from '../src/lib/logger.ts';
import { seededRandom } from '../src/lib/seeded-random.ts';
import { start, waitForHttp } from './processes.ts';

export interface ChaosOptions {
  seconds: number;
  connections: number;
  apps: number;
  /** How long the database stays down, from a third of the run. */
  downSeconds: number;
  log?: (line: string) => void;
}

export interface ChaosFigures {
  requests: number;
  byStatus: Record<string, number>;
  /** Requests that got no HTTP answer at all (the connection failed). */
  socketErrors: number;
  serverErrors500: number;
  p50Ms: number;
  p99Ms: number;
  /** While the database was down: the slowest answer (the contract: 503 within 2 s). */
  slowestWhileDownMs: number;
  /** From the database's return to the first acknowledged install. */
  recoveredMs: number;
  installsAcknowledged: number;
  installsFound: number;
  lostInstalls: number;
}

const root = join(import.meta.dir, '..');
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export async function runChaos(options: ChaosOptions): Promise<ChaosFigures> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const work = mkdtempSync(join(tmpdir(), 'marketplace-chaos-'));
  chmodSync(work, 0o755);
  // Persistent, so the same cluster can be stopped and started again under the service.
  const database = await startEmbeddedPostgres(join(work, 'db'), createLogger('silent'), { persistent: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: database.url('postgres'),
    DATA_DIR: join(work, 'data'),
    PORT: String(port),
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'silent',
    // Installs play many clients through X-Forwarded-For, so each one counts.
    TRUSTED_PROXIES: '127.0.0.1/32',
  };
  const service = start(['bun', join(root, 'src/main.ts')], env);
  const cli = (...args: string[]) => {
    const result = Bun.spawnSync(['bun', join(root, 'src/cli/index.ts'), ...args], { env: { ...Bun.env, ...env } });
    if (result.exitCode !== 0) throw new Error(`cli ${args[0]} failed: ${result.stderr.toString()}`);
    return result.stdout.toString().trim();
  };
  const db = new pg.Client({ connectionString: env.DATABASE_URL });
  try {
    await waitForHttp(`${base}/readyz`);
    cli('seed', '--apps', String(options.apps));
    // A developer with an API key and a draft of their own, for the developer writes.
    const token = cli('token', '--user', 'chaos-developer', '--email', 'chaos@example.com');
    const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await fetch(`${base}/api/dev/register`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'Chaos', email: 'chaos@example.com', platformUserId: 'chaos-developer' }),
    });
    cli('developers:verify', 'chaos@example.com');
    const key = (
      (await (
        await fetch(`${base}/api/dev/api-keys`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ name: 'chaos', scopes: ['APP_CREATE', 'APP_UPDATE'] }),
        })
      ).json()) as { key: string }
    ).key;
    const keyed = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const draft = (await (
      await fetch(`${base}/api/dev/apps`, {
        method: 'POST',
        headers: keyed,
        body: JSON.stringify({ name: 'Chaos Draft', description: 'Edited under load.', category: 'OTHER', environment: 'staging' }),
      })
    ).json()) as { id: string };

    db.on('error', () => {});
    await db.connect();
    const slugs = (await db.query<{ slug: string }>(`select slug from apps where status = 'APPROVED' limit 500`)).rows.map((row) => row.slug);
    const words = (await db.query<{ word: string }>(`select distinct split_part(lower(name), ' ', 1) as word from apps limit 200`)).rows.map(
      (row) => row.word,
    );
    await db.end();

    const random = seededRandom(7);
    const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
    const answers: { status: number; startedAt: number; ms: number }[] = [];
    const acknowledged: string[] = [];
    let socketErrors = 0;
    let installs = 0;
    let writes = 0;
    let stopped = false;

    async function one(): Promise<void> {
      const roll = random();
      let request: Request;
      let installId: string | undefined;
      if (roll < 0.55) {
        const path = pick([`/api/apps?limit=20&page=${1 + Math.floor(random() * 5)}`, `/api/apps/${pick(slugs)}`, `/api/apps?search=${pick(words)}`]);
        request = new Request(`${base}${path}`);
      } else if (roll < 0.9) {
        installs += 1;
        installId = `chaos-${installs}`;
        // A network of its own (an IPv6 /64) and a new installation id: a new, counted install.
        const network = `2001:db8:${(installs >> 16) & 0xffff}:${installs & 0xffff}::1`;
        request = new Request(`${base}/api/apps/${pick(slugs)}/install`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': network },
          body: JSON.stringify({ installationId: installId }),
        });
      } else {
        writes += 1;
        request = new Request(`${base}/api/dev/apps/${draft.id}`, {
          method: 'PUT',
          headers: keyed,
          body: JSON.stringify({ description: `Edit ${writes} under load.` }),
        });
      }
      const startedAt = performance.now();
      try {
        const response = await fetch(request);
        await response.arrayBuffer();
        answers.push({ status: response.status, startedAt, ms: performance.now() - startedAt });
        if (installId && response.status === 201) acknowledged.push(`installation:${installId}`);
      } catch {
        socketErrors += 1;
      }
    }
    const connection = async () => {
      while (!stopped) await one();
    };

    log(
      `chaos: ${options.connections} connections for ${options.seconds} s; the database goes down at ${Math.round(options.seconds / 3)} s for ${options.downSeconds} s`,
    );
    const loops = Array.from({ length: options.connections }, connection);
    const began = performance.now();
    await Bun.sleep((options.seconds * 1000) / 3);
    const resume = await database.interrupt!();
    const downFrom = performance.now();
    await Bun.sleep(options.downSeconds * 1000);
    const downUntil = performance.now();
    await resume();
    const back = performance.now();
    await Bun.sleep(Math.max(0, options.seconds * 1000 - (performance.now() - began)));
    stopped = true;
    await Promise.all(loops);

    const check = new pg.Client({ connectionString: env.DATABASE_URL });
    await check.connect();
    const found = (await check.query<{ n: number }>('select count(*)::int as n from installs where installer = any($1)', [acknowledged])).rows[0]!.n;
    await check.end();

    const latencies = answers.map((answer) => answer.ms).sort((a, b) => a - b);
    const whileDown = answers.filter((answer) => answer.startedAt >= downFrom && answer.startedAt + answer.ms <= downUntil);
    const firstInstallBack = answers.find((answer) => answer.startedAt >= back && answer.status === 201);
    const byStatus: Record<string, number> = {};
    for (const answer of answers) byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
    return {
      requests: answers.length + socketErrors,
      byStatus,
      socketErrors,
      serverErrors500: answers.filter((answer) => answer.status >= 500 && answer.status !== 503).length,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      slowestWhileDownMs: Math.max(0, ...whileDown.map((answer) => answer.ms)),
      recoveredMs: firstInstallBack ? firstInstallBack.startedAt + firstInstallBack.ms - back : Number.POSITIVE_INFINITY,
      installsAcknowledged: acknowledged.length,
      installsFound: found,
      lostInstalls: acknowledged.length - found,
    };
  } finally {
    await service.stop();
    await database.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

export function describeChaos(figures: ChaosFigures): string {
  const statuses = Object.entries(figures.byStatus)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  return [
    `requests ${figures.requests} (${statuses}; no answer: ${figures.socketErrors})`,
    `latency p50 ${figures.p50Ms.toFixed(1)} ms, p99 ${figures.p99Ms.toFixed(1)} ms; slowest answer while the database was down ${figures.slowestWhileDownMs.toFixed(0)} ms`,
    `installs working again ${figures.recoveredMs.toFixed(0)} ms after the database returned`,
    `installs: ${figures.installsAcknowledged} acknowledged, ${figures.installsFound} found, ${figures.lostInstalls} lost; 500s: ${figures.serverErrors500}`,
  ].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '30' },
      connections: { type: 'string', default: '64' },
      apps: { type: 'string', default: '1000' },
      down: { type: 'string', default: '3' },
    },
  });
  const figures = await runChaos({
    seconds: Number(values.seconds),
    connections: Number(values.connections),
    apps: Number(values.apps),
    downSeconds: Number(values.down),
  });
  process.stdout.write(`${describeChaos(figures)}\n`);
  process.exitCode = figures.lostInstalls === 0 && figures.serverErrors500 === 0 ? 0 : 1;
}
