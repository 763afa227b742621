import { join } from 'node:path';

/** One wrk run: `threads` threads, `connections` connections for `seconds`, with a Lua script that prints one `BENCH {json}` line. */
export interface WrkResult {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
  non2xx: number;
  socketErrors: number;
  sent?: number;
  created?: number;
  /** CPU the load generator itself used (it shares the machine with the server). */
  cpuSeconds?: number;
}

export interface WrkRun {
  url: string;
  script: 'paths' | 'install';
  /** `walk`: no path repeats within a run (paths.lua); else each request picks one at random. */
  order?: 'random' | 'walk';
  /** A file of paths, one a line, the script picks from at random. */
  pathsFile?: string;
  seconds: number;
  connections: number;
  threads?: number;
}

const SCRIPTS = join(import.meta.dir, 'wrk');

/** The `BENCH {…}` line the scripts' `done()` prints. */
export function parseWrkOutput(output: string): WrkResult {
  const line = output.split('\n').find((l) => l.startsWith('BENCH '));
  if (!line) throw new Error(`wrk printed no summary:\n${output}`);
  return JSON.parse(line.slice('BENCH '.length)) as WrkResult;
}

export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const args = [
    'wrk',
    `-t${run.threads ?? 2}`,
    `-c${run.connections}`,
    `-d${run.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    join(SCRIPTS, `${run.script}.lua`),
    run.url,
  ];
  const child = Bun.spawn(args, {
    env: {
      ...Bun.env,
      BENCH_THREADS: String(run.threads ?? 2),
      BENCH_ORDER: run.order ?? 'random',
      ...(run.pathsFile ? { BENCH_PATHS: run.pathsFile } : {}),
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${stderr}`);
  const usage = child.resourceUsage();
  const cpuSeconds = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1e6 : undefined;
  return { ...parseWrkOutput(stdout), cpuSeconds };
}

export const requestsPerSecond = (result: WrkResult) => result.requests / (result.durationUs / 1e6);
