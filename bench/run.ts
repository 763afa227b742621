/**
 * `bun run bench`: the public catalogue under load, next to its yardsticks, in interleaved runs.
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
import { pick, seededRandom } from '../src/lib/seeded-random.ts';
import { runMixed, steadyLoad, type MixedRequest } from './mixed.ts';
import { pgbenchInstalls } from './pgbench.ts';
import { cpuMeter, sampleRss, start, waitForHttp } from './processes.ts';
import { printKinds, printSummary, summarise, type Measurement } from './report.ts';
import { coldSearchMix, searchMix, searchPath } from './search-terms.ts';
import { requestsPerSecond, runWrk, type WrkResult } from './wrk.ts';

const { values: options } = parseArgs({
  options: {
    apps: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '8' },
    // Interleaved runs: every scenario and its yardsticks once per run; figures are medians over runs.
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    // API processes (WEB_CONCURRENCY); the hello-world yardstick runs with as many.
    processes: { type: 'string', default: '1' },
    only: { type: 'string' },
    // `api` leaves the roll-up jobs queued (no workers), to see what they cost the installs.
    role: { type: 'string', default: 'all' },
    // Installs a second arriving while slugs are read (`slug-installs`).
    'install-rate': { type: 'string', default: '200' },
  },
});
const APPS = Number(options.apps);
const SECONDS = Number(options.seconds);
const RUNS = Number(options.runs);
const CONNECTIONS = Number(options.connections);
const PROCESSES = Number(options.processes);
const INSTALL_RATE = Number(options['install-rate']);
/** Distinct cold queries per run: more than a run can send, so none repeats. */
const COLD_PER_RUN = 40_000;
/** Installs made before each mixed run (not measured) for its uninstalls to take back until its own installs are answered. */
const UNINSTALLABLE_BEFORE_MIXED = 300;
const only = options.only?.split(',');
const wanted = (key: string) => !only || only.includes(key);
const log = (line: string) => process.stderr.write(`${line}\n`);
const root = join(import.meta.dir, '..');
const load1m = () => loadavg()[0]!;

const work = mkdtempSync(join(tmpdir(), 'marketplace-bench-'));
// Run as root, the embedded PostgreSQL runs as `postgres`, which must reach its directory through this one.
chmodSync(work, 0o755);
// Room for the seed's millions of install rows without a checkpoint in the middle of it.
const database = await startEmbeddedPostgres(join(work, 'db'), createLogger('warn'), {
  persistent: false,
  settings: { max_wal_size: '8GB', shared_buffers: '512MB' },
});
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
const cli = (...args: string[]) => {
  const run = Bun.spawnSync(['bun', join(root, 'src/cli/index.ts'), ...args], { env: { ...Bun.env, ...serviceEnv } });
  if (run.exitCode !== 0) throw new Error(`cli ${args[0]} failed: ${run.stderr.toString()}`);
  return run.stdout.toString().trim();
};
// Exactly as `bun start` (or `bun run start:api`) runs it, with the runtime's memory settings in package.json.
const service = start(['bun', 'run', '--cwd', root, options.role === 'api' ? 'start:api' : 'start'], serviceEnv);
const stops: (() => Promise<void>)[] = [() => service.stop()];

try {
  await waitForHttp(`${base}/readyz`);
  log(`seeding ${APPS} apps with the CLI…`);
  const seedStarted = performance.now();
  const seeded = cli('seed', '--apps', String(APPS));
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  log(`${seeded} (${seedSeconds.toFixed(1)} s with the CLI's start)`);

  const db = new pg.Client({ connectionString: databaseUrl });
  db.on('error', () => {});
  await db.connect();
  stops.push(() => db.end());
  /**
   * Waits until the roll-ups have caught up (no stats job waiting, the categories counting every
   * app), so a scenario starts on a settled catalogue rather than on what the one before it left to
   * count; returns how long that took, in seconds.
   */
  const settle = async () => {
    const started = performance.now();
    for (;;) {
      const { rows } = await db.query(
        `select (select count(*) from pgboss.job where name like 'stats.%' and state in ('created', 'retry', 'active'))::int as pending,
                (select sum(app_count) from category_counts)::int as counted`,
      );
      if ((rows[0].pending === 0 || options.role === 'api') && rows[0].counted === APPS) return (performance.now() - started) / 1000;
      await Bun.sleep(200);
    }
  };
  await settle();
  // The steady state autovacuum reaches on its own: statistics, and the visibility map index-only scans need.
  await db.query('vacuum analyze');

  const random = seededRandom(Date.now());
  const listings = (await db.query<{ name: string; description: string; slug: string }>(`select name, description, slug from apps order by random()`))
    .rows;
  const files = join(work, 'paths');
  mkdirSync(files);
  const pathsFile = (name: string, paths: string[]) => {
    const file = join(files, `${name}.txt`);
    writeFileSync(file, `${paths.join('\n')}\n`);
    return file;
  };
  const warm = searchMix(random, listings, 600);
  const cold = coldSearchMix(random, listings, (RUNS + 1) * COLD_PER_RUN, new Set(warm)).map(searchPath);
  // A small catalogue has fewer distinct queries than asked for: each run (and the mixed runs) gets an equal share.
  const coldPerRun = Math.floor(cold.length / (RUNS + 1));
  const coldRuns = Array.from({ length: RUNS }, (_, run) => pathsFile(`cold-${run}`, cold.slice(run * coldPerRun, (run + 1) * coldPerRun)));
  const coldForMixed = cold.slice(RUNS * coldPerRun);
  const slugs = listings.slice(0, 2_000).map((listing) => `/api/apps/${listing.slug}`);
  const paths = {
    warm: pathsFile('warm', warm.map(searchPath)),
    slugs: pathsFile('slugs', slugs),
    // Installs go to every app of the catalogue.
    installs: pathsFile(
      'installs',
      listings.map((listing) => `/api/apps/${listing.slug}/install`),
    ),
  };
  log(`${warm.length} warm searches, ${cold.length} cold ones (${coldPerRun} a run), ${slugs.length} slugs`);

  // Developers for the mixed run's writes: a platform token each, registered through the API.
  const developers = await Promise.all(
    [1, 2, 3, 4].map(async (n) => {
      const user = `bench-developer-${n}`;
      const token = cli('token', '--user', user);
      const response = await fetch(`${base}/api/dev/register`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Bench Developer ${n}`, email: `${user}@example.com`, platformUserId: user }),
      });
      if (response.status !== 201) throw new Error(`registering a developer: ${response.status} ${await response.text()}`);
      return token;
    }),
  );

  const wrk = (url: string, script: 'paths' | 'install' = 'paths', file?: string, order?: 'walk') =>
    runWrk({ url, script, pathsFile: file, order, seconds: SECONDS, connections: CONNECTIONS });
  let installSerial = 0;
  const newInstall = (): MixedRequest => {
    installSerial += 1;
    return {
      method: 'POST',
      path: `/api/apps/${pick(random, listings).slug}/install`,
      // A network of its own each (an IPv6 /64), apart from the ones wrk's install script uses.
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': `2001:db8:${(0xf000 + (installSerial >> 16)).toString(16)}:${(installSerial & 0xffff).toString(16)}::1`,
      },
      body: JSON.stringify({ installationId: `bench-steady-${installSerial}` }),
    };
  };

  // Warm-up (not measured): JIT and connection pools, on paths the measured runs do not use; and
  // the process's search index, whose first reading is timed and reported, not measured (D199).
  await runWrk({ url: `${base}/api/apps/categories/list`, script: 'paths', seconds: 2, connections: CONNECTIONS });
  await runWrk({ url: `${base}/api/apps?limit=5&sort=newest`, script: 'paths', seconds: 2, connections: CONNECTIONS });
  const rssBeforeIndexMb = sampleRss(service.child.pid).stop().peakMb;
  const indexStarted = performance.now();
  const indexRss = sampleRss(service.child.pid);
  const firstSearch = await fetch(`${base}/api/apps?search=bench%20warm%20up&limit=5`);
  if (firstSearch.status !== 200) throw new Error(`the first search answered ${firstSearch.status}`);
  // The first search starts the index's first reading (PostgreSQL answers meanwhile); the runs start once it is done.
  const indexedApps = async () => Number(/^catalogue_search_index_apps (\d+)/m.exec(await (await fetch(`${base}/metrics`)).text())?.[1] ?? 0);
  for (const deadline = performance.now() + 120_000; (await indexedApps()) < APPS; await Bun.sleep(100)) {
    if (performance.now() > deadline) throw new Error('the search index did not read every app within 2 minutes');
  }
  const searchIndex = { loadSeconds: (performance.now() - indexStarted) / 1000, rssBeforeMb: rssBeforeIndexMb, peakRssMb: indexRss.stop().peakMb };
  log(
    `first search (loads the search index): ${searchIndex.loadSeconds.toFixed(1)} s, RSS ${rssBeforeIndexMb.toFixed(0)} -> peak ${searchIndex.peakRssMb.toFixed(0)} MB`,
  );

  const idleRssMb = sampleRss(service.child.pid).stop().peakMb;
  const rss = sampleRss(service.child.pid);
  const cpu = cpuMeter(service.child.pid);
  const measurements: Measurement[] = [];
  const installChecks: { created: number; sent: number; rows: number }[] = [];
  const countInstalls = async () => (await db.query(`select count(*)::int as n from installs`)).rows[0].n as number;
  const record = (key: string, name: string, run: number, result: WrkResult, yardstick: number | null, extra: Partial<Measurement> = {}) => {
    const rate = requestsPerSecond(result);
    const measurement: Measurement = {
      key,
      name,
      run,
      rate,
      share: yardstick ? rate / yardstick : null,
      p50Ms: result.p50Us / 1000,
      p99Ms: result.p99Us / 1000,
      failures: result.non2xx + result.socketErrors,
      load1m: load1m(),
      ...extra,
    };
    measurements.push(measurement);
    log(
      `  ${name}: ${rate.toFixed(0)}/s${measurement.share === null ? '' : ` (${(measurement.share * 100).toFixed(1)}%)`}, p99 ${measurement.p99Ms!.toFixed(1)} ms, load ${measurement.load1m.toFixed(1)}`,
    );
  };
  /** A wrk run with the CPU and RSS it cost. */
  const measured = async (run: () => Promise<WrkResult>) => {
    const during = sampleRss(service.child.pid);
    const { result, cores, seconds } = await cpu.measure(run);
    return { result, extra: { cores: { ...cores, load: (result.cpuSeconds ?? 0) / seconds }, rssMb: during.stop().peakMb } };
  };

  /** How long each run waited for the roll-ups before its first scenario and before the mixed run. */
  const rollUpWaits: { run: number; before: string; seconds: number }[] = [];
  const settleBefore = async (run: number, before: string) => {
    const seconds = await settle();
    rollUpWaits.push({ run, before, seconds });
    if (seconds >= 0.5) log(`  (waited ${seconds.toFixed(1)} s for the roll-ups before ${before})`);
  };

  for (let run = 0; run < RUNS; run += 1) {
    await settleBefore(run, 'hello-world');
    log(
      `run ${run + 1} of ${RUNS} (load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
    );
    const hello = await freePort();
    const helloWorld = start(['bun', join(import.meta.dir, 'hello-world.ts'), String(hello), String(PROCESSES)], {});
    await waitForHttp(`http://127.0.0.1:${hello}/`);
    const helloResult = await wrk(`http://127.0.0.1:${hello}/`);
    await helloWorld.stop();
    record('hello', 'Elysia hello-world (yardstick)', run, helloResult, null);
    const helloRate = requestsPerSecond(helloResult);

    /**
     * `warm`: a file of paths read for 2 s, unmeasured, before the run (D227). The other cached reads'
     * one answer is read by their first request; the slugs' 2,000 take 2,000 reads of PostgreSQL, and
     * after the round before (its installs moved their counters) a read in the background each.
     */
    const reads: { key: string; name: string; warm?: string; go: () => Promise<WrkResult> }[] = [
      // What every request pays (request id, headers, metrics, routing) with nothing else to do.
      { key: 'livez', name: 'GET /livez (the per-request floor)', go: () => wrk(`${base}/livez`) },
      { key: 'list', name: 'GET /api/apps?limit=20', go: () => wrk(`${base}/api/apps?limit=20`) },
      { key: 'slug', name: 'GET /api/apps/:slug (2,000 slugs)', warm: paths.slugs, go: () => wrk(base, 'paths', paths.slugs) },
      { key: 'categories', name: 'GET /api/apps/categories/list', go: () => wrk(`${base}/api/apps/categories/list`) },
      { key: 'featured', name: 'GET /api/apps/featured/list', go: () => wrk(`${base}/api/apps/featured/list`) },
      { key: 'search', name: `warm search mix (${warm.length} distinct)`, go: () => wrk(base, 'paths', paths.warm) },
      { key: 'cold', name: 'cold search mix (no query repeats)', go: () => wrk(base, 'paths', coldRuns[run], 'walk') },
    ];
    /**
     * Slug reads while installs arrive over the whole catalogue, right after the quiet slug reads
     * they are a share of, so the two differ only by the installs (after the cold searches cached
     * reads answer slower for a while, installs or not: D229); then the roll-ups are let finish.
     */
    const slugReadsUnderInstalls = async (quietSlugs: number) => {
      const steady = steadyLoad(base, INSTALL_RATE, newInstall);
      await Bun.sleep(2_000);
      const { result, extra } = await measured(() => wrk(base, 'paths', paths.slugs));
      const statuses = await steady.stop();
      const refused = Object.entries(statuses)
        .filter(([status]) => status !== '201')
        .reduce((sum, [, n]) => sum + n, 0);
      record('slug-installs', `GET /api/apps/:slug while ${INSTALL_RATE} installs/s arrive (share of quiet slug reads)`, run, result, quietSlugs, {
        ...extra,
        failures: result.non2xx + result.socketErrors + refused,
      });
      await settle();
    };
    // The slug-installs scenario's share needs the quiet slug reads.
    for (const scenario of reads.filter((s) => wanted(s.key) || (s.key === 'slug' && wanted('slug-installs')))) {
      if (scenario.warm) {
        const warmUp = await runWrk({ url: base, script: 'paths', pathsFile: scenario.warm, order: 'walk', seconds: 2, connections: CONNECTIONS });
        if (warmUp.non2xx + warmUp.socketErrors > 0) {
          throw new Error(`${scenario.name}: the warm-up had ${warmUp.non2xx} non-2xx answers and ${warmUp.socketErrors} socket errors`);
        }
      }
      const { result, extra } = await measured(scenario.go);
      record(scenario.key, scenario.name, run, result, helloRate, extra);
      if (scenario.key === 'slug' && wanted('slug-installs')) await slugReadsUnderInstalls(requestsPerSecond(result));
    }

    if (wanted('installs')) {
      const pgbench = await pgbenchInstalls(databaseUrl, SECONDS, APPS);
      measurements.push({
        key: 'pgbench',
        name: 'pgbench install INSERT, 32 clients (yardstick)',
        run,
        rate: pgbench.tps,
        share: null,
        load1m: load1m(),
      });
      const before = await countInstalls();
      const { result, extra } = await measured(() => wrk(base, 'install', paths.installs));
      // Whatever was still in flight when wrk stopped has committed by now.
      await Bun.sleep(1_000);
      installChecks.push({ created: result.created ?? 0, sent: result.sent ?? 0, rows: (await countInstalls()) - before });
      record('installs', 'POST /api/apps/:slug/install (new installer, any app)', run, result, pgbench.tps, extra);
    }

    if (wanted('mixed')) {
      // The installs scenario leaves tens of thousands of installs to count: the mixed run measures its own load, not that backlog.
      await settleBefore(run, 'the mixed run');
      const mixedShare = Math.floor(coldForMixed.length / RUNS);
      const coldPool = coldForMixed.slice(run * mixedShare, (run + 1) * mixedShare);
      let coldNext = 0;
      // Uninstalls take back installs answered 201 (an uninstall of an installer that never installed
      // is a 404), oldest first: some made before the run, not measured, then the run's own.
      const uninstallable: MixedRequest[] = [];
      for (const request of Array.from({ length: UNINSTALLABLE_BEFORE_MIXED }, newInstall)) {
        const response = await fetch(`${base}${request.path}`, request);
        if (response.status !== 201) throw new Error(`an install before the mixed run answered ${response.status}`);
        uninstallable.push(request);
      }
      const uninstallOf = (install: MixedRequest): MixedRequest => ({ ...install, path: install.path.replace(/\/install$/, '/uninstall') });
      const cachedReads = ['/api/apps?limit=20', '/api/apps/categories/list', '/api/apps/featured/list', '/api/apps?limit=20&sort=rating', ...slugs];
      const { result, cores } = await cpu.measure(() =>
        runMixed(
          base,
          [
            { name: 'cached read', weight: 60, next: () => ({ method: 'GET', path: pick(random, cachedReads) }) },
            { name: 'warm search', weight: 15, next: () => ({ method: 'GET', path: searchPath(pick(random, warm)) }) },
            { name: 'cold search', weight: 5, next: () => ({ method: 'GET', path: coldPool[coldNext++ % coldPool.length]! }) },
            {
              name: 'install',
              weight: 16,
              next: newInstall,
              answered: (request, status) => {
                if (status === '201') uninstallable.push(request);
              },
            },
            // The run's installs (16 to 3) keep more waiting than its uninstalls take.
            { name: 'uninstall', weight: 3, next: () => uninstallOf(uninstallable.shift()!) },
            {
              name: 'developer write',
              weight: 1,
              next: () => ({
                method: 'PUT',
                path: '/api/dev/me',
                headers: { authorization: `Bearer ${pick(random, developers)}`, 'content-type': 'application/json' },
                body: JSON.stringify({ bio: `Edited at ${Date.now()} by the mixed run.` }),
              }),
            },
          ],
          { seconds: SECONDS, connections: CONNECTIONS, random },
        ),
      );
      const failures = Object.values(result.kinds).reduce(
        (sum, kind) =>
          sum +
          Object.entries(kind.statuses)
            .filter(([status]) => !status.startsWith('2'))
            .reduce((n, [, count]) => n + count, 0),
        0,
      );
      const readP99 = Math.max(result.kinds['cached read']!.p99Ms, result.kinds['warm search']!.p99Ms, result.kinds['cold search']!.p99Ms);
      measurements.push({
        key: 'mixed',
        name: 'mixed run (Bun client; p99 = slowest read kind)',
        run,
        rate: result.requestsPerSecond,
        share: result.requestsPerSecond / helloRate,
        p99Ms: readP99,
        failures,
        cores: { server: cores.server, postgres: cores.postgres, load: 0 },
        load1m: load1m(),
        kinds: result.kinds,
      });
      log(`  mixed: ${result.requestsPerSecond.toFixed(0)}/s, read p99 ${readP99.toFixed(1)} ms, non-2xx ${failures}`);
    }
  }
  const memory = rss.stop();

  const summary = summarise(measurements);
  const report = {
    at: new Date().toISOString(),
    machine: { cpus: navigator.hardwareConcurrency, bun: Bun.version, loadAverageAtEnd: loadavg() },
    settings: { apps: APPS, seconds: SECONDS, runs: RUNS, connections: CONNECTIONS, processes: PROCESSES, wrkThreads: 2, installRate: INSTALL_RATE },
    seed: { output: seeded, seconds: seedSeconds },
    searchIndex,
    summary,
    measurements,
    serverPeakRssMb: memory,
    serverRssBeforeLoadMb: idleRssMb,
    installs: installChecks,
    rollUpWaits,
  };
  printSummary(
    summary,
    `${APPS} apps (seeded in ${seedSeconds.toFixed(1)} s); ${RUNS} interleaved runs of wrk -t2 -c${CONNECTIONS} -d${SECONDS}s; ${PROCESSES} API process(es); ${report.machine.cpus} CPUs; Bun ${Bun.version}`,
  );
  printKinds(measurements);
  console.log(
    `\nserver peak RSS: ${memory.peakMb.toFixed(0)} MB per process (${memory.processes} process(es), ${memory.totalPeakMb.toFixed(0)} MB together); ${idleRssMb.toFixed(0)} MB before the load, ${rssBeforeIndexMb.toFixed(0)} MB before the search index (loaded in ${searchIndex.loadSeconds.toFixed(1)} s, peak ${searchIndex.peakRssMb.toFixed(0)} MB meanwhile)`,
  );
  for (const check of installChecks) {
    console.log(
      `installs: ${check.created} answered 201, ${check.rows} rows written, ${check.sent} sent (rows − 201s ≤ requests in flight when wrk stopped: ${check.sent - check.created})`,
    );
  }
  const waits = (before: string) =>
    rollUpWaits
      .filter((wait) => wait.before === before)
      .map((wait) => wait.seconds.toFixed(1))
      .join(' / ');
  console.log(
    `waited for the roll-ups (s, per run): before hello-world ${waits('hello-world')}; before the mixed run ${waits('the mixed run') || '—'}`,
  );
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
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
