import { readdirSync, readFileSync } from 'node:fs';

/** The processes the bench starts, and what they cost in memory. */
export interface Started {
  child: ReturnType<typeof Bun.spawn>;
  stop(): Promise<void>;
}

export function start(args: string[], env: Record<string, string | undefined>): Started {
  const child = Bun.spawn(args, { env: { ...Bun.env, ...env }, stdout: 'ignore', stderr: 'inherit' });
  return {
    child,
    async stop() {
      for (const pid of descendants(child.pid)) process.kill(pid, 'SIGTERM');
      child.kill('SIGTERM');
      await child.exited;
    },
  };
}

export async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await Bun.sleep(200);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Every process below `root` (the service's extra API processes). */
export function descendants(root: number): number[] {
  const pids = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
  const found: number[] = [];
  let frontier = [root];
  while (frontier.length > 0) {
    const children = pids.filter((pid) => frontier.includes(parentOf(pid) ?? -1));
    found.push(...children);
    frontier = children;
  }
  return found;
}

function rssKb(pid: number): number {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Samples the RSS of `root` and each of its descendants every 100 ms; the peak is per process. */
export function sampleRss(root: number) {
  const peaks = new Map<number, number>();
  const sample = () => {
    for (const pid of [root, ...descendants(root)]) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, rssKb(pid)));
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const values = [...peaks.values()];
      return { peakMb: Math.max(...values) / 1024, processes: values.length, totalPeakMb: values.reduce((a, b) => a + b, 0) / 1024 };
    },
  };
}

/**
 * CPU ticks (1/100 s) used so far by a process and the children it reaped (user and system time):
 * a PostgreSQL backend whose connection closes passes its time to the postmaster, so a process
 * ending during a run takes no time out of it.
 */
function cpuTicks(pid: number): { comm: string; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { comm, ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) };
  } catch {
    return undefined;
  }
}

/**
 * Where the CPU went during a run, among this bench's own processes: the service (its process
 * tree) and PostgreSQL (wrk reports its own, `WrkResult.cpuSeconds`). Other users of the machine
 * are not counted.
 */
export function cpuMeter(servicePid: number) {
  const snapshot = () => {
    const service = new Set([servicePid, ...descendants(servicePid)]);
    const totals = { server: 0, postgres: 0 };
    for (const pid of descendants(process.pid)) {
      const usage = cpuTicks(pid);
      if (!usage) continue;
      if (service.has(pid)) totals.server += usage.ticks;
      else if (usage.comm.startsWith('postgres')) totals.postgres += usage.ticks;
    }
    return totals;
  };
  return {
    /** Runs `work` and reports each part's CPU in cores (1.0 = one core busy throughout). */
    async measure<T>(work: () => Promise<T>): Promise<{ result: T; cores: { server: number; postgres: number }; seconds: number }> {
      const before = snapshot();
      const started = performance.now();
      const result = await work();
      const after = snapshot();
      const seconds = (performance.now() - started) / 1000;
      const cores = (key: 'server' | 'postgres') => Math.max(0, (after[key] - before[key]) / 100 / seconds);
      return { result, cores: { server: cores('server'), postgres: cores('postgres') }, seconds };
    },
  };
}
