import { expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWrkOutput, runWrk } from '../../bench/wrk.ts';
import { coldSearchMix, searchMix, searchPath, typo } from '../../bench/search-terms.ts';
import { median, summarise } from '../../bench/report.ts';
import { runMixed, type MixedRequest } from '../../bench/mixed.ts';
import { cpuMeter } from '../../bench/processes.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import { editDistance } from '../../src/lib/edit-distance.ts';

/** The benchmark's pieces, cheaply: its search mix, its wrk script and how its output is read (not a measurement). */
test('the search mix has thousands of distinct queries of every kind, typos one edit away', () => {
  const random = seededRandom(1);
  const listings = Array.from({ length: 500 }, (_, i) => ({
    name: `Brand${i % 40} Noun${i % 13} Edition${i % 7}`,
    description: `Brand${i % 40} does thing${i % 50} for audience${i % 9}. Another${i % 30} sentence.`,
  }));
  const mix = searchMix(random, listings, 600);
  expect(new Set(mix).size).toBe(mix.length);
  expect(mix.length).toBeGreaterThan(1_000);
  expect(mix.some((query) => listings.some((l) => l.name === query))).toBe(true);
  expect(mix.some((query) => !query.includes(' '))).toBe(true);
  for (let i = 0; i < 200; i += 1) {
    const word = `planner${i}`;
    expect(editDistance(typo(random, word), word)).toBeLessThanOrEqual(1);
  }
  expect(searchPath('a b&c')).toBe('/api/apps?search=a%20b%26c');
});

test('the cold mix: tens of thousands of distinct queries, none from the warm mix, words, typos and phrases', () => {
  const random = seededRandom(2);
  const listings = Array.from({ length: 2_000 }, (_, i) => ({
    name: `Brand${i % 97} Noun${i % 89} Edition${i % 7}`,
    description: `Brand${i % 97} does thing${i % 301} for audience${i % 53}. Another${i % 30} sentence${i % 11}.`,
  }));
  const warm = new Set(searchMix(random, listings, 200));
  const cold = coldSearchMix(random, listings, 20_000, warm);
  expect(cold.length).toBe(20_000);
  expect(new Set(cold).size).toBe(cold.length);
  expect(cold.some((query) => warm.has(query))).toBe(false);
  expect(cold.filter((query) => query.includes(' ')).length).toBeGreaterThan(5_000);
});

test('a figure is the median over runs, with its range', () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 2, 3])).toBe(2.5);
  const rows = summarise([1, 2, 3].map((run) => ({ key: 'list', name: 'list', run, rate: run * 100, share: run / 10, p99Ms: run, load1m: 1 })));
  expect(rows[0]!.rate.median).toBe(200);
  expect(rows[0]!.share!.all).toEqual([0.1, 0.2, 0.3]);
});

// The two wrk runs (a second each) run side by side: each has a server and a file of its own.
test.concurrent('paths.lua in walk order sends every path of its file once before any repeats, threads taking turns', async () => {
  const seen: string[] = [];
  // Each answer takes at least a millisecond, so 4 connections send at most ~4,000 requests in the
  // second: far fewer than the file's 50,000 paths, however fast the machine (a fast one once wrapped).
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (request) => {
      seen.push(new URL(request.url).pathname);
      await Bun.sleep(1);
      return new Response('ok');
    },
  });
  try {
    const file = join(mkdtempSync(join(tmpdir(), 'bench-walk-')), 'paths.txt');
    writeFileSync(file, `${Array.from({ length: 50_000 }, (_, i) => `/p${i}`).join('\n')}\n`);
    const result = await runWrk({
      url: `http://127.0.0.1:${server.port}`,
      script: 'paths',
      order: 'walk',
      pathsFile: file,
      seconds: 1,
      connections: 4,
      threads: 2,
    });
    expect(result.requests).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(50_000);
    expect(new Set(seen).size).toBe(seen.length);
  } finally {
    server.stop(true);
  }
});

test.concurrent("wrk runs the bench's script over a file of paths and reports one JSON summary", async () => {
  const seen = new Set<string>();
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => (seen.add(new URL(request.url).pathname), new Response('ok')) });
  try {
    const file = join(mkdtempSync(join(tmpdir(), 'bench-paths-')), 'paths.txt');
    writeFileSync(file, '/one\n/two\n/three\n');
    const result = await runWrk({ url: `http://127.0.0.1:${server.port}`, script: 'paths', pathsFile: file, seconds: 1, connections: 4, threads: 1 });
    expect(result.requests).toBeGreaterThan(0);
    expect(result.non2xx).toBe(0);
    expect([...seen].sort()).toEqual(['/one', '/three', '/two']);
  } finally {
    server.stop(true);
  }
});

test('a wrk run without the summary line is an error, not zeros', () => {
  expect(() => parseWrkOutput('Running 1s test\n')).toThrow('no summary');
  expect(parseWrkOutput('x\nBENCH {"requests":5,"durationUs":1000000,"p50Us":1,"p99Us":2,"maxUs":3,"non2xx":0,"socketErrors":0}\n').requests).toBe(5);
});

test.concurrent("the mixed run tells each kind its requests' answers, so uninstalls take back only installs answered 201", async () => {
  // A server that answers an uninstall 200 only for an installer it answered 201 to, as the service does (else 404).
  const installed = new Set<string>();
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (request) => {
      const id = ((await request.json()) as { installationId: string }).installationId;
      if (new URL(request.url).pathname.endsWith('/install')) return (installed.add(id), new Response(null, { status: 201 }));
      return new Response(null, { status: installed.delete(id) ? 200 : 404 });
    },
  });
  try {
    let serial = 0;
    const install = (): MixedRequest => ({ method: 'POST', path: '/api/apps/a/install', body: JSON.stringify({ installationId: `i-${++serial}` }) });
    const uninstallable: MixedRequest[] = [install()];
    await fetch(`http://127.0.0.1:${server.port}${uninstallable[0]!.path}`, uninstallable[0]);
    const result = await runMixed(
      `http://127.0.0.1:${server.port}`,
      [
        { name: 'install', weight: 16, next: install, answered: (request, status) => status === '201' && uninstallable.push(request) },
        // Were the installs' answers not told, the pool would run dry after one: an installer never seen, which the server refuses.
        { name: 'uninstall', weight: 3, next: () => ({ ...(uninstallable.shift() ?? install()), path: '/api/apps/a/uninstall' }) },
      ],
      { seconds: 1, connections: 4, random: seededRandom(7) },
    );
    expect(result.kinds.install!.requests).toBeGreaterThan(10);
    expect(result.kinds.uninstall!.statuses).toEqual({ 200: result.kinds.uninstall!.requests });
  } finally {
    server.stop(true);
  }
});

test.concurrent("the CPU meter keeps a service's process that ends during the run (its time passes to its parent)", async () => {
  const done = join(mkdtempSync(join(tmpdir(), 'cpu-meter-')), 'done');
  // A process of the service that works for about half a second and is gone before the run ends, as a PostgreSQL backend whose connection closes.
  const service = Bun.spawn([
    'sh',
    '-c',
    `${process.execPath} -e "const end = Date.now() + 500; while (Date.now() < end);"; touch ${done}; exec sleep 60`,
  ]);
  try {
    const { cores, seconds } = await cpuMeter(service.pid).measure(async () => {
      while (!(await Bun.file(done).exists())) await Bun.sleep(20);
    });
    expect(cores.server * seconds).toBeGreaterThan(0.3);
  } finally {
    service.kill();
  }
});
