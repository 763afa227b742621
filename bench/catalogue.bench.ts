/**
 * Catalogue benchmark (not a test): `bun bench/catalogue.bench.ts`.
 *
 * Starts the whole service (API and workers) on a fresh embedded PostgreSQL, or on DATABASE_URL
 * when it is set, with rate limits off; seeds 10,000 apps; then sends a bounded number of
 * requests per scenario to 127.0.0.1 from a worker thread (so the load generator does not share
 * the server's event loop) and prints requests/s and latency percentiles.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  paths: string[];
  /** A JSON body per request, by its index (installs use a new installationId each time). */
  bodies?: string[];
  requests: number;
  concurrency: number;
}

interface ScenarioResult {
  latencies: number[];
  errors: number;
  seconds: number;
}

// Inside the worker thread, `self` is the port back to the main thread.
declare var self: Worker;

const APPS = 10_000;
const CONCURRENCY = 16;

if (!Bun.isMainThread) {
  // The load generator: runs one scenario per message and posts the latencies back.
  self.onmessage = async (event: MessageEvent<{ base: string; scenario: Scenario }>) => {
    const { base, scenario } = event.data;
    const latencies: number[] = [];
    let errors = 0;
    let next = 0;
    const started = performance.now();
    const client = async () => {
      for (let i = next++; i < scenario.requests; i = next++) {
        const body = scenario.bodies?.[i];
        const t0 = performance.now();
        const response = await fetch(`${base}${scenario.paths[i % scenario.paths.length]}`, {
          method: scenario.method,
          headers: body ? { 'content-type': 'application/json' } : {},
          body,
        });
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (response.status >= 300) errors += 1;
      }
    };
    await Promise.all(Array.from({ length: scenario.concurrency }, client));
    postMessage({ latencies, errors, seconds: (performance.now() - started) / 1000 } satisfies ScenarioResult);
  };
} else {
  const { loadConfig } = await import('../src/config.ts');
  const { createLogger } = await import('../src/lib/logger.ts');
  const { startRuntime } = await import('../src/runtime.ts');
  const { createApp } = await import('../src/app.ts');
  const { seedApps } = await import('../src/modules/catalogue/seed.service.ts');

  const dataDir = mkdtempSync(join(tmpdir(), 'marketplace-bench-'));
  // Like a test harness, the benchmark reads its environment once here (DATABASE_URL, if any).
  const config = loadConfig({ ...process.env, RATE_LIMITS: 'off', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  const logger = createLogger('warn');
  const runtime = await startRuntime(config, logger, { role: 'all' });
  const log = (line: string) => process.stderr.write(`${line}\n`);

  try {
    log(`database: ${config.databaseUrl ? 'DATABASE_URL' : 'embedded PostgreSQL'}; seeding ${APPS} apps…`);
    const seedStarted = performance.now();
    const seeded = await seedApps(runtime.ctx.orm.em.fork(), APPS, { seed: 1 });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    log(`seeded ${seeded.apps} apps, ${seeded.installs} installs, ${seeded.reviews} reviews in ${seedSeconds.toFixed(1)} s`);
    // The steady state autovacuum reaches on its own: statistics, and the visibility map index-only scans need.
    await runtime.ctx.orm.em.fork().execute('vacuum analyze');

    const server = createApp(runtime.ctx).listen({ port: 0, hostname: '127.0.0.1' });
    const base = `http://127.0.0.1:${server.server!.port}`;

    const picks = await runtime.ctx.orm.em
      .fork()
      .execute<{ slug: string; name: string }[]>(`select slug, name from apps where status = 'APPROVED' order by random() limit 200`);
    const slugs = picks.map((row) => row.slug);
    // One dropped letter in the second word of a real name ("Ledger" → "Ledgr").
    const typo = (name: string) => {
      const word = name.split(' ')[1] ?? name;
      return word.length > 4 ? word.slice(0, 3) + word.slice(4) : word;
    };
    const typoSearches = picks.slice(0, 50).map((row) => `/api/apps?search=${encodeURIComponent(typo(row.name))}`);

    const scenarios: Scenario[] = [
      { name: 'GET /api/apps (default sort)', method: 'GET', paths: ['/api/apps'], requests: 3_000, concurrency: CONCURRENCY },
      { name: 'GET /api/apps?search=<one typo>', method: 'GET', paths: typoSearches, requests: 2_000, concurrency: CONCURRENCY },
      { name: 'GET /api/apps/:slug', method: 'GET', paths: slugs.map((slug) => `/api/apps/${slug}`), requests: 5_000, concurrency: CONCURRENCY },
      {
        name: 'POST /api/apps/:slug/install',
        method: 'POST',
        paths: slugs.map((slug) => `/api/apps/${slug}/install`),
        bodies: Array.from({ length: 3_000 }, (_, i) => JSON.stringify({ installationId: `bench-${Date.now()}-${i}` })),
        requests: 3_000,
        concurrency: CONCURRENCY,
      },
    ];

    const generator = new Worker(import.meta.path);
    const run = (scenario: Scenario) =>
      new Promise<ScenarioResult>((resolve) => {
        generator.onmessage = (event: MessageEvent<ScenarioResult>) => resolve(event.data);
        generator.postMessage({ base, scenario });
      });

    const rows: string[][] = [];
    for (const scenario of scenarios) {
      // A short warm-up (JIT, connection pool, caches) that is not measured; installs warm up with GETs.
      await run({ ...scenario, method: 'GET', bodies: undefined, paths: scenario.method === 'GET' ? scenario.paths : ['/api/apps'], requests: 200 });
      const result = await run(scenario);
      const sorted = [...result.latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
      rows.push([
        scenario.name,
        String(scenario.requests),
        String(scenario.concurrency),
        (scenario.requests / result.seconds).toFixed(0),
        at(0.5).toFixed(2),
        at(0.95).toFixed(2),
        String(result.errors),
      ]);
    }
    generator.terminate();
    await server.stop();

    const header = ['scenario', 'requests', 'concurrency', 'req/s', 'p50 ms', 'p95 ms', 'non-2xx'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
    console.log(`\n${APPS} apps seeded in ${seedSeconds.toFixed(1)} s; ${navigator.hardwareConcurrency} CPUs; Bun ${Bun.version}\n`);
    console.log(line(header));
    console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    for (const row of rows) console.log(line(row));
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
