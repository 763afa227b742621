/**
 * `bun run bench:daily`: the 366-day analytics series of an app with 1,000,000 installs.
 *
 * Starts the service as `bun start` runs it against a fresh database, gives one app a million
 * installs spread over two years (plus uninstalls and reviews) with `generate_series` in SQL,
 * lets the real roll-up jobs count them, then times the series one request at a time through HTTP.
 * See bench/README.md. Not part of `bun test`.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Elysia } from 'elysia';
import { freePort, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { createLogger } from '../src/lib/logger.ts';
import { start, waitForHttp } from './processes.ts';
import { DailySeries, type DailyAnalytics } from '../src/modules/analytics/analytics.model.ts';

const { values: options } = parseArgs({
  options: {
    installs: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '30' },
  },
});
const INSTALLS = Number(options.installs);
const REQUESTS = Number(options.requests);
const log = (line: string) => process.stderr.write(`${line}\n`);
const root = join(import.meta.dir, '..');
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const DAY_MS = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);

const work = mkdtempSync(join(tmpdir(), 'marketplace-bench-daily-'));
// Run as root, the embedded PostgreSQL runs as `postgres`, which must reach its directory through this one.
chmodSync(work, 0o755);
const database = await startEmbeddedPostgres(join(work, 'db'), createLogger('warn'), { persistent: false });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = { DATABASE_URL: database.url('postgres'), DATA_DIR: join(work, 'data'), PORT: String(port), RATE_LIMITS: 'off', LOG_LEVEL: 'warn' };
const service = start(['bun', 'run', '--cwd', root, 'start'], env);
const db = new pg.Client({ connectionString: env.DATABASE_URL });
db.on('error', () => {});

const cli = (...args: string[]) => {
  const result = Bun.spawnSync(['bun', join(root, 'src/cli/index.ts'), ...args], { env: { ...Bun.env, ...env } });
  if (result.exitCode !== 0) throw new Error(`cli ${args[0]} failed: ${result.stderr.toString()}`);
  return result.stdout.toString().trim();
};
async function call(path: string, init: { token: string; method?: string; body?: unknown; accept?: string }) {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${init.token}`, 'content-type': 'application/json', accept: init.accept ?? 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
  return text;
}

interface Timed {
  median: number;
  min: number;
  max: number;
  p90: number;
  bytes: number;
}

const summarise = (samples: number[], bytes: number): Timed => {
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { median: at(0.5), min: samples[0]!, max: samples.at(-1)!, p90: at(0.9), bytes };
};

/**
 * Latencies in ms of `REQUESTS` sequential requests to each path, the paths taken in turn (after 5
 * rounds not measured): every path sees the same moments of the run, so one timed first does not
 * alone pay for what the database is still doing after the roll-ups and VACUUM.
 */
async function time(requests: { path: string; accept?: string }[], token: string): Promise<Timed[]> {
  for (let i = 0; i < 5; i++) for (const { path, accept } of requests) await call(path, { token, accept });
  const samples = requests.map(() => [] as number[]);
  const bytes = requests.map(() => 0);
  for (let i = 0; i < REQUESTS; i++) {
    for (const [n, { path, accept }] of requests.entries()) {
      const started = performance.now();
      bytes[n] = (await call(path, { token, accept })).length;
      samples[n]!.push(performance.now() - started);
    }
  }
  return samples.map((taken, n) => summarise(taken, bytes[n]!));
}

/**
 * What the JSON answer costs in Elysia after its query, in this process (no HTTP, no database):
 * the same body answered by a route with the series' response schema (validation and
 * serialisation) and by one without (serialisation only), 300 requests each, in turn.
 */
async function elysiaCost(body: DailyAnalytics): Promise<{ validated: Timed; bare: Timed }> {
  const routes = [
    new Elysia({ normalize: false }).get('/', () => body, { response: { 200: DailySeries } }),
    new Elysia({ normalize: false }).get('/', () => body),
  ];
  const samples = routes.map(() => [] as number[]);
  for (let i = 0; i < 350; i++) {
    for (const [n, route] of routes.entries()) {
      const started = performance.now();
      const response = await route.handle(new Request('http://localhost/'));
      await response.text();
      if (response.status !== 200) throw new Error(`the in-process route answered ${response.status}`);
      if (i >= 50) samples[n]!.push(performance.now() - started);
    }
  }
  return { validated: summarise(samples[0]!, 0), bare: summarise(samples[1]!, 0) };
}

try {
  await waitForHttp(`${base}/readyz`);
  await db.connect();
  log(`load average at start: ${load()}`);

  // A verified developer with an analytics key and one app, through the API and the CLI.
  const oauth = cli('token', '--user', 'bench-developer', '--email', 'bench@example.com');
  await call('/api/dev/register', {
    token: oauth,
    method: 'POST',
    body: { name: 'Bench', email: 'bench@example.com', platformUserId: 'bench-developer' },
  });
  cli('developers:verify', 'bench@example.com');
  const key = JSON.parse(
    await call('/api/dev/api-keys', { token: oauth, method: 'POST', body: { name: 'bench', scopes: ['APP_CREATE', 'ANALYTICS_READ'] } }),
  ).key as string;
  const app = JSON.parse(
    await call('/api/dev/apps', {
      token: key,
      method: 'POST',
      body: { name: 'Million Installs', description: 'Counted every day.', category: 'OTHER', environment: 'production' },
    }),
  ) as { id: string; slug: string };
  // Public, so that it can be installed and reviewed (the review is what rolls its review days up).
  await db.query(`update apps set status = 'APPROVED', first_approved_at = now() - interval '800 days' where id = $1`, [app.id]);

  // The events, in SQL: installs spread over two years, one in seven uninstalled later, 20,000 reviews.
  let started = performance.now();
  await db.query(
    `insert into installs (app_id, installer, platform_user_id, installed_at)
     select $1, 'user:bench-' || g, 'bench-' || g, now() - random() * interval '730 days' from generate_series(1, $2::int) g`,
    [app.id, INSTALLS],
  );
  await db.query(
    `insert into install_events (app_id, installer, seq, kind, counted, occurred_at)
     select app_id, installer, 1, 'UNINSTALL', true, installed_at + random() * (now() - installed_at) from installs where app_id = $1 and id % 7 = 0`,
    [app.id],
  );
  await db.query(
    `insert into reviews (id, app_id, platform_user_id, rating, created_at, updated_at)
     select gen_random_uuid(), app_id, platform_user_id, 1 + (id / 50) % 5, installed_at, installed_at from installs where app_id = $1 and id % 50 = 0`,
    [app.id],
  );
  const seeded = (performance.now() - started) / 1000;
  log(`seeded ${INSTALLS.toLocaleString('en')} installs in ${seeded.toFixed(1)} s`);

  // One install and one review through the API enqueue the real roll-ups, which then count everything.
  const reviewer = cli('token', '--user', 'bench-reviewer');
  started = performance.now();
  await call(`/api/apps/${app.slug}/install`, { token: reviewer, method: 'POST', body: {} });
  await call(`/api/apps/${app.slug}/reviews`, { token: reviewer, method: 'POST', body: { rating: 5, title: 'Counted', body: 'Every day of it.' } });
  for (;;) {
    const { rows } = await db.query(
      `select (select last_id from stats_watermarks where name = 'installs') >= (select max(id) from installs)
          and (select last_id from stats_watermarks where name = 'install_events') >= (select max(id) from install_events)
          and (select coalesce(sum(reviews), 0) from app_daily_stats where app_id = $1) = (select count(*) from reviews where app_id = $1 and not hidden)
          as done`,
      [app.id],
    );
    if (rows[0].done) break;
    await Bun.sleep(200);
  }
  const rolledUp = (performance.now() - started) / 1000;
  const { rows: shape } = await db.query(
    `select (select count(*) from app_daily_stats where app_id = $1)::int as days, s.install_count, s.active_installs, s.uninstall_count
     from app_stats s where s.app_id = $1`,
    [app.id],
  );
  log(`rolled up in ${rolledUp.toFixed(1)} s: ${JSON.stringify(shape[0])}`);
  await db.query('vacuum analyze');

  // What the roll-up saves: the same 366 days counted from the installs themselves.
  started = performance.now();
  await db.query(
    `select (installed_at at time zone 'utc')::date as day, count(*) from installs
     where app_id = $1 and installed_at >= now() - interval '366 days' group by 1`,
    [app.id],
  );
  const scanMs = performance.now() - started;

  const series = `/api/dev/apps/${app.id}/analytics/daily?from=${day(365)}&to=${day(0)}`;
  log(`load average before timing: ${load()}`);
  const [json, csv, month, summary] = (await time(
    [
      { path: series },
      { path: series, accept: 'text/csv' },
      { path: `/api/dev/apps/${app.id}/analytics/daily` },
      { path: `/api/dev/apps/${app.id}/analytics` },
    ],
    key,
  )) as [Timed, Timed, Timed, Timed];
  const elysia = await elysiaCost(JSON.parse(await call(series, { token: key })));
  const fmt = (r: Timed) =>
    `median ${r.median.toFixed(1)} ms, range ${r.min.toFixed(1)}–${r.max.toFixed(1)} ms, p90 ${r.p90.toFixed(1)} ms, ${r.bytes.toLocaleString('en')} bytes`;
  const report = [
    `# daily series bench, ${new Date().toISOString()}`,
    `app: ${INSTALLS.toLocaleString('en')} installs, ${shape[0].days} day rows; seeded in ${seeded.toFixed(1)} s, rolled up by the jobs in ${rolledUp.toFixed(1)} s`,
    `${REQUESTS} sequential requests each, the four paths in turn, after 5 rounds not measured; load average (1, 5, 15 min) at the end: ${load()}`,
    `GET …/analytics/daily, 366 days (JSON): ${fmt(json)}`,
    `GET …/analytics/daily, 366 days (CSV):  ${fmt(csv)}`,
    `GET …/analytics/daily, default 30 days:  ${fmt(month)}`,
    `GET …/analytics:                        ${fmt(summary)}`,
    `the 366-day JSON body in Elysia, in this process (300 each): with the response schema median ${elysia.validated.median.toFixed(3)} ms (min ${elysia.validated.min.toFixed(3)}), without ${elysia.bare.median.toFixed(3)} ms (min ${elysia.bare.min.toFixed(3)})`,
    `for comparison, 366 days counted from the installs in SQL (one query): ${scanMs.toFixed(0)} ms`,
  ];
  process.stdout.write(`${report.join('\n')}\n`);
} finally {
  await db.end().catch(() => {});
  await service.stop().catch(() => {});
  await database.stop().catch(() => {});
  rmSync(work, { recursive: true, force: true });
}
