import type { KindResult } from './mixed.ts';

/** One scenario's figures in one run (round) of the bench. */
export interface Measurement {
  key: string;
  name: string;
  run: number;
  /** Requests (or, for pgbench, transactions) per second. */
  rate: number;
  /** Its share of the yardstick measured in the same run; null for a yardstick. */
  share: number | null;
  p50Ms?: number;
  p99Ms?: number;
  /** Answers that were not 2xx, and socket errors. */
  failures?: number;
  /** CPU in cores of the server, PostgreSQL and the load generator during the run. */
  cores?: { server: number; postgres: number; load: number };
  /** The server's peak RSS during the run (the largest process). */
  rssMb?: number;
  /** 1-minute load average when the run ended. */
  load1m: number;
  /** Per kind of request, for the mixed run. */
  kinds?: Record<string, KindResult>;
}

export const median = (values: number[]) => {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const range = (values: number[], format: (value: number) => string) =>
  values.length > 1 ? `${format(Math.min(...values))}–${format(Math.max(...values))}` : format(values[0] ?? Number.NaN);

/** Per scenario: the median over runs, and the range, of each figure. */
export function summarise(measurements: Measurement[]) {
  const keys = [...new Set(measurements.map((m) => m.key))];
  return keys.map((key) => {
    const runs = measurements.filter((m) => m.key === key);
    const of = (pick: (m: Measurement) => number | null | undefined) => runs.map(pick).filter((v): v is number => typeof v === 'number');
    return {
      key,
      name: runs[0]!.name,
      runs: runs.length,
      rate: { median: median(of((m) => m.rate)), all: of((m) => m.rate) },
      share: of((m) => m.share).length ? { median: median(of((m) => m.share)), all: of((m) => m.share) } : null,
      p50Ms: median(of((m) => m.p50Ms)),
      p99Ms: { median: median(of((m) => m.p99Ms)), all: of((m) => m.p99Ms) },
      failures: of((m) => m.failures).reduce((a, b) => a + b, 0),
      cores: runs[0]!.cores ? (['server', 'postgres', 'load'] as const).map((part) => median(runs.map((m) => m.cores?.[part] ?? 0))) : null,
      rssMb: Math.max(0, ...of((m) => m.rssMb)),
      load1m: of((m) => m.load1m),
    };
  });
}

export function printSummary(summary: ReturnType<typeof summarise>, heading: string): void {
  const header = [
    'scenario',
    'req/s (median)',
    'share median (range)',
    'p50 ms',
    'p99 ms median (range)',
    'non-2xx',
    'CPU srv/pg/load',
    'RSS MB',
    'load 1m',
  ];
  const fixed = (digits: number) => (value: number) => value.toFixed(digits);
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const cells = summary.map((row) => [
    row.name,
    row.rate.median.toFixed(0),
    row.share ? `${percent(row.share.median)} (${range(row.share.all, percent)})` : '—',
    Number.isNaN(row.p50Ms) ? '—' : row.p50Ms.toFixed(2),
    Number.isNaN(row.p99Ms.median) ? '—' : `${row.p99Ms.median.toFixed(1)} (${range(row.p99Ms.all, fixed(1))})`,
    String(row.failures),
    row.cores ? row.cores.map((c) => c.toFixed(2)).join('/') : '—',
    row.rssMb ? row.rssMb.toFixed(0) : '—',
    range(row.load1m, fixed(1)),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  console.log(`\n${heading}\n`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

export function printKinds(measurements: Measurement[]): void {
  const mixed = measurements.filter((m) => m.kinds);
  if (mixed.length === 0) return;
  console.log('\nmixed run, per kind (median over runs; statuses summed):');
  for (const kind of Object.keys(mixed[0]!.kinds!)) {
    const results = mixed.map((m) => m.kinds![kind]!);
    const statuses: Record<string, number> = {};
    for (const result of results) for (const [status, n] of Object.entries(result.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
    console.log(
      `  ${kind.padEnd(16)} ${String(Math.round(median(results.map((r) => r.requests)))).padStart(7)} requests/run  p50 ${median(results.map((r) => r.p50Ms)).toFixed(2)} ms  p99 ${median(results.map((r) => r.p99Ms)).toFixed(1)} ms (${range(
        results.map((r) => r.p99Ms),
        fixed1,
      )})  ${JSON.stringify(statuses)}`,
    );
  }
}

const fixed1 = (value: number) => value.toFixed(1);
