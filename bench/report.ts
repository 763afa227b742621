import type { WrkResult } from './wrk.ts';

/** A measured row: a wrk result (or a pgbench rate) and the rate of its yardstick in the same run. */
export interface Row {
  name: string;
  result?: WrkResult;
  tps?: number;
  /** CPU in cores of the server, PostgreSQL and wrk during the run. */
  cores?: { server: number; postgres: number; wrk: number };
  /** The server's peak RSS during the run (the largest process). */
  rssMb?: number;
  yardstick: number | null;
  load: number;
}

interface Report {
  settings: { apps: number; seconds: number; connections: number; processes: number };
  machine: { cpus: number; bun: string; loadAverage: number[] };
  rows: {
    name: string;
    requestsPerSecond?: number;
    tps?: number;
    p50Ms?: number;
    p99Ms?: number;
    non2xx?: number;
    socketErrors?: number;
    shareOfYardstick: number | null;
    cpuCores?: { server: number; postgres: number; wrk: number };
    serverPeakRssMb?: number;
    load1m: number;
  }[];
  serverPeakRssMb: { peakMb: number; processes: number; totalPeakMb: number };
  serverRssBeforeLoadMb: number;
  installs?: { created: number; sent: number; rows: number };
}

export function printReport(report: Report): void {
  const header = ['scenario', 'req/s', 'share', 'p50 ms', 'p99 ms', 'non-2xx', 'CPU server/pg/wrk', 'RSS MB', 'load 1m'];
  const cells = report.rows.map((row) => [
    row.name,
    String(row.requestsPerSecond ?? `${Math.round(row.tps ?? 0)} tps`),
    row.shareOfYardstick === null ? '—' : `${(row.shareOfYardstick * 100).toFixed(1)}%`,
    row.p50Ms === undefined ? '—' : row.p50Ms.toFixed(2),
    row.p99Ms === undefined ? '—' : row.p99Ms.toFixed(2),
    row.non2xx === undefined ? '—' : String(row.non2xx + (row.socketErrors ?? 0)),
    row.cpuCores ? [row.cpuCores.server, row.cpuCores.postgres, row.cpuCores.wrk].map((c) => c.toFixed(2)).join('/') : '—',
    row.serverPeakRssMb === undefined ? '—' : row.serverPeakRssMb.toFixed(0),
    row.load1m.toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const { settings, machine } = report;
  console.log(
    `\n${settings.apps} apps; wrk -t2 -c${settings.connections} -d${settings.seconds}s; ${settings.processes} API process(es); ${machine.cpus} CPUs; Bun ${machine.bun}\n`,
  );
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
  const rss = report.serverPeakRssMb;
  console.log(
    `\nserver peak RSS: ${rss.peakMb.toFixed(0)} MB per process (${rss.processes} process(es), ${rss.totalPeakMb.toFixed(0)} MB together); ${report.serverRssBeforeLoadMb.toFixed(0)} MB before the load`,
  );
  if (report.installs) {
    const { created, sent, rows } = report.installs;
    console.log(`installs: ${created} answered 201, ${rows} rows written, ${sent} sent (rows − 201s ≤ requests in flight when wrk stopped: ${sent - created})`);
  }
}
