/**
 * `bun run bench`: the public catalogue under load, next to its yardsticks, in one run.
 * See bench/README.md for what it does and how to read it. Not part of `bun test`.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { freePort } from '../src/db/embedded.ts';
import { createLogger } from '../src/lib/logger.ts';
import { pgbenchInstalls } from './pgbench.ts';
import { cpuMeter, sampleRss, start, waitForHttp } from './processes.ts';
import { printReport, type Row } from './report.ts';
import { searchMix, searchPath } from './search-terms.ts';
import { seededRandom } from '../src/lib/seeded-random.ts';
import { requestsPerSecond, runWrk, type WrkResult } from './wrk.ts';

const { values: options } = parseArgs({
  options: {
    apps: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' },
    // API processes (WEB_CONCURRENCY); the hello-world yardstick runs with as many.
    processes: { type: 'string', default: '1' },
    only: { type: 'string' },
    // `api` leaves the roll-up jobs queued (no workers), to see what they cost the installs.
    role: { type: 'string', default: 'all' },
  },
});
const APPS = Number(options.apps);
const SECONDS = Number(options.seconds);
const CONNECTIONS = Number(options.connections);
const PROCESSES = Number(options.processes);
const only = options.only?.split(',');
const log = (line: string) => process.stderr.write(`${line}\n`);
const root = join(import.meta.dir, '..');

const work = mkdtempSync(join(tmpdir(), 'marketplace-bench-'));
// Run as root, the embedded PostgreSQL runs as `postgres`, which must reach its directory through this one.
chmodSync(work, 0o755);
const database = await startEmbeddedPostgres(join(work, 'db'), createLogger('warn'), { persistent: false });
const databaseUrl = database.url('postgres');
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const serviceEnv = {
  DATABASE_URL: databaseUrl,
  DATA_DIR: join(work, 'data'),
  PORT: String(port),
  RATE_LIMITS: 'off',
  LOG_LEVEL: 'warn',
  // The install load plays many clients through X-Forwarded-For.
  TRUSTED_PROXIES: '127.0.0.1/32',
  WEB_CONCURRENCY: String(PROCESSES),
};
// Exactly as `bun start` (or `bun run start:api`) runs it, with the runtime's memory settings in package.json.
const service = start(['bun', 'run', '--cwd', root, options.role === 'api' ? 'start:api' : 'start'], serviceEnv);
const stops: (() => Promise<void>)[] = [() => service.stop()];

try {
  await waitForHttp(`${base}/readyz`);
  log(`seeding ${APPS} apps with the CLI…`);
  const seed = Bun.spawnSync(['bun', join(root, 'src/cli/index.ts'), 'seed', '--apps', String(APPS)], { env: { ...Bun.env, ...serviceEnv } });
  if (seed.exitCode !== 0) throw new Error(`seed failed: ${seed.stderr.toString()}`);
  log(seed.stdout.toString().trim());

  const db = new pg.Client({ connectionString: databaseUrl });
  db.on('error', () => {});
  await db.connect();
  stops.push(() => db.end());
  // The roll-ups have caught up when no stats job is waiting and the categories count every app.
  for (let settled = false; !settled; await Bun.sleep(200)) {
    const { rows } = await db.query(
      `select (select count(*) from pgboss.job where name like 'stats.%' and state in ('created', 'retry', 'active'))::int as pending,
              (select sum(app_count) from category_counts)::int as counted`,
    );
    settled = (rows[0].pending === 0 || options.role === 'api') && rows[0].counted === APPS;
  }
  // The steady state autovacuum reaches on its own: statistics, and the visibility map index-only scans need.
  await db.query('vacuum analyze');

  const listings = (await db.query<{ name: string; description: string; slug: string }>(`select name, description, slug from apps order by random()`)).rows;
  const files = join(work, 'paths');
  mkdirSync(files);
  const pathsFile = (name: string, paths: string[]) => {
    const file = join(files, `${name}.txt`);
    writeFileSync(file, `${paths.join('\n')}\n`);
    return file;
  };
  const searches = searchMix(seededRandom(Date.now()), listings, 600).map(searchPath);
  const slugs = listings.slice(0, 2_000).map((listing) => `/api/apps/${listing.slug}`);
  const installs = listings.slice(0, 2_000).map((listing) => `/api/apps/${listing.slug}/install`);
  log(`${searches.length} distinct searches, ${slugs.length} slugs`);

  const hello = await freePort();
  const helloWorld = start(['bun', join(import.meta.dir, 'hello-world.ts'), String(hello), String(PROCESSES)], {});
  stops.push(() => helloWorld.stop());
  await waitForHttp(`http://127.0.0.1:${hello}/`);

  const load = (url: string, script: 'paths' | 'install' = 'paths', file?: string) =>
    runWrk({ url, script, pathsFile: file, seconds: SECONDS, connections: CONNECTIONS });
  const wanted = (name: string) => !only || only.includes(name);
  const load1m = () => loadavg()[0]!;

  // Warm-up (not measured): JIT and connection pools, on paths the measured runs do not use.
  await runWrk({ url: `${base}/api/apps/categories/list`, script: 'paths', seconds: 2, connections: CONNECTIONS });
  await runWrk({ url: `${base}/api/apps?limit=5&sort=newest`, script: 'paths', seconds: 2, connections: CONNECTIONS });

  const rows: Row[] = [];
  const helloResult = await load(`http://127.0.0.1:${hello}/`);
  await helloWorld.stop();
  stops.pop();
  rows.push({ name: 'Elysia hello-world (yardstick)', result: helloResult, yardstick: null, load: load1m() });
  const helloRate = requestsPerSecond(helloResult);

  const idleRssMb = sampleRss(service.child.pid).stop().peakMb;
  const rss = sampleRss(service.child.pid);
  const cpu = cpuMeter(service.child.pid);
  const measured = async (run: () => Promise<WrkResult>) => {
    const during = sampleRss(service.child.pid);
    const { result, cores, seconds } = await cpu.measure(run);
    return { result, cores: { ...cores, wrk: (result.cpuSeconds ?? 0) / seconds }, rssMb: during.stop().peakMb };
  };
  const scenarios: { key: string; name: string; run: () => Promise<WrkResult> }[] = [
    { key: 'list', name: 'GET /api/apps?limit=20', run: () => load(`${base}/api/apps?limit=20`) },
    { key: 'slug', name: 'GET /api/apps/:slug (2,000 slugs)', run: () => load(base, 'paths', pathsFile('slugs', slugs)) },
    { key: 'categories', name: 'GET /api/apps/categories/list', run: () => load(`${base}/api/apps/categories/list`) },
    { key: 'featured', name: 'GET /api/apps/featured/list', run: () => load(`${base}/api/apps/featured/list`) },
    { key: 'search', name: `GET /api/apps?search=… (${searches.length} distinct)`, run: () => load(base, 'paths', pathsFile('searches', searches)) },
  ];
  for (const scenario of scenarios.filter((s) => wanted(s.key))) {
    log(`loading ${scenario.name}…`);
    const { result, cores, rssMb } = await measured(scenario.run);
    rows.push({ name: scenario.name, result, cores, rssMb, yardstick: helloRate, load: load1m() });
  }

  let installCheck: { created: number; sent: number; rows: number } | undefined;
  if (wanted('installs')) {
    const pgbench = await pgbenchInstalls(databaseUrl, SECONDS);
    rows.push({ name: 'pgbench install INSERT, 32 clients (yardstick)', tps: pgbench.tps, yardstick: null, load: load1m() });
    log('loading installs…');
    const before = (await db.query(`select count(*)::int as n from installs`)).rows[0].n as number;
    const { result, cores, rssMb } = await measured(() => load(base, 'install', pathsFile('installs', installs)));
    await Bun.sleep(1_000);
    const after = (await db.query(`select count(*)::int as n from installs`)).rows[0].n as number;
    installCheck = { created: result.created ?? 0, sent: result.sent ?? 0, rows: after - before };
    rows.push({ name: 'POST /api/apps/:slug/install (new installer each)', result, cores, rssMb, yardstick: pgbench.tps, load: load1m() });
  }
  const memory = rss.stop();

  const report = {
    at: new Date().toISOString(),
    machine: { cpus: navigator.hardwareConcurrency, bun: Bun.version, loadAverage: loadavg() },
    settings: { apps: APPS, seconds: SECONDS, connections: CONNECTIONS, processes: PROCESSES, wrkThreads: 2 },
    rows: rows.map((row) => ({
      name: row.name,
      ...(row.result
        ? {
            requestsPerSecond: Math.round(requestsPerSecond(row.result)),
            p50Ms: row.result.p50Us / 1000,
            p99Ms: row.result.p99Us / 1000,
            non2xx: row.result.non2xx,
            socketErrors: row.result.socketErrors,
          }
        : { tps: row.tps }),
      shareOfYardstick: row.yardstick ? (row.result ? requestsPerSecond(row.result) : 0) / row.yardstick : null,
      cpuCores: row.cores,
      serverPeakRssMb: row.rssMb,
      load1m: row.load,
    })),
    serverPeakRssMb: memory,
    serverRssBeforeLoadMb: idleRssMb,
    installs: installCheck,
  };
  printReport(report);
  const results = join(import.meta.dir, 'results');
  mkdirSync(results, { recursive: true });
  const file = join(results, `${report.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  log(`written to ${file}`);
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await database.stop();
  rmSync(work, { recursive: true, force: true });
}
