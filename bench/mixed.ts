/**
 * Load generators written in Bun, for what wrk cannot do: the mixed run, whose requests are of
 * several kinds with a latency each, and a steady install rate under other load.
 */
export interface MixedRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface MixedKind {
  name: string;
  /** Its share of the requests (weights are relative). */
  weight: number;
  next(): MixedRequest;
  /** Told each request of the kind and its answer's status (the mixed run's uninstalls take back its installs). */
  answered?(request: MixedRequest, status: string): void;
}

export interface KindResult {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers by status ('error' for a failed connection). */
  statuses: Record<string, number>;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

function summarise(latencies: number[], statuses: Record<string, number>): KindResult {
  const sorted = latencies.toSorted((a, b) => a - b);
  return { requests: latencies.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), statuses };
}

async function send(base: string, request: MixedRequest): Promise<string> {
  try {
    const response = await fetch(`${base}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
    await response.arrayBuffer();
    return String(response.status);
  } catch {
    return 'error';
  }
}

/** `connections` loops for `seconds`, each request of a kind drawn by weight; latency and statuses per kind. */
export async function runMixed(
  base: string,
  kinds: MixedKind[],
  options: { seconds: number; connections: number; random: () => number },
): Promise<{ requestsPerSecond: number; kinds: Record<string, KindResult> }> {
  const total = kinds.reduce((sum, kind) => sum + kind.weight, 0);
  const latencies = kinds.map(() => [] as number[]);
  const statuses = kinds.map(() => ({}) as Record<string, number>);
  const draw = () => {
    let at = options.random() * total;
    for (const [i, kind] of kinds.entries()) {
      at -= kind.weight;
      if (at < 0) return i;
    }
    return kinds.length - 1;
  };
  const started = performance.now();
  const until = started + options.seconds * 1000;
  const loop = async () => {
    while (performance.now() < until) {
      const i = draw();
      const request = kinds[i]!.next();
      const sent = performance.now();
      const status = await send(base, request);
      latencies[i]!.push(performance.now() - sent);
      kinds[i]!.answered?.(request, status);
      statuses[i]![status] = (statuses[i]![status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: options.connections }, loop));
  const seconds = (performance.now() - started) / 1000;
  const requests = latencies.reduce((sum, list) => sum + list.length, 0);
  return {
    requestsPerSecond: requests / seconds,
    kinds: Object.fromEntries(kinds.map((kind, i) => [kind.name, summarise(latencies[i]!, statuses[i]!)])),
  };
}

/** Sends `make()` at `perSecond` (in ticks of 10 ms) until stopped; what came back, by status. */
export function steadyLoad(base: string, perSecond: number, make: () => MixedRequest) {
  const statuses: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  let owed = 0;
  const timer = setInterval(() => {
    owed += perSecond / 100;
    for (; owed >= 1; owed -= 1) {
      const request = send(base, make()).then((status) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        inFlight.delete(request);
      });
      inFlight.add(request);
    }
  }, 10);
  return {
    async stop(): Promise<Record<string, number>> {
      clearInterval(timer);
      await Promise.all(inFlight);
      return statuses;
    },
  };
}
