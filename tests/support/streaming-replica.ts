import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/db/embedded.ts';

/**
 * A PostgreSQL primary with streaming replicas of it (`pg_basebackup -R`), all run from Debian's
 * PostgreSQL 15 server binaries so primary and replicas match. Run as root, the servers run as
 * `postgres`, which owns their directories. Each backup asks for a fast checkpoint: the default
 * spread one kept the test waiting about a minute per replica.
 */
const BIN = '/usr/lib/postgresql/15/bin';

export interface Cluster {
  primaryUrl: string;
  replicaUrls: string[];
  /** Holds or lets go WAL replay on a replica: a replica that lags for as long as a test likes. */
  pauseReplay(replica: number): Promise<void>;
  resumeReplay(replica: number): Promise<void>;
  stop(): Promise<void>;
}

const asRoot = userInfo().uid === 0;

function run(args: string[]) {
  const command = asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args;
  const result = Bun.spawnSync(command, { stdout: 'pipe', stderr: 'pipe' });
  if (result.exitCode !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr.toString()}${result.stdout.toString()}`);
}

function ownedDirectory(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  if (asRoot) {
    const uid = Number(Bun.spawnSync(['id', '-u', 'postgres']).stdout.toString().trim());
    const gid = Number(Bun.spawnSync(['id', '-g', 'postgres']).stdout.toString().trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  return dir;
}

async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

export async function startCluster(replicas: number, database = 'marketplace'): Promise<Cluster> {
  const root = mkdtempSync(join(tmpdir(), 'marketplace-replication-'));
  chmodSync(root, 0o755);
  const sockets = ownedDirectory(root, 'sockets');
  const started: string[] = [];
  const url = (port: number, name = database) => `postgres://postgres@127.0.0.1:${port}/${name}`;
  const start = (dir: string, port: number) => {
    // Thrown away after the test, like the suite's own database: waiting for the disk at every commit only slows it.
    const settings = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    run([`${BIN}/pg_ctl`, '-D', dir, '-l', join(dir, 'server.log'), '-w', '-o', settings, 'start']);
    started.push(dir);
  };
  const stop = async () => {
    for (const dir of started.reverse()) {
      try {
        run([`${BIN}/pg_ctl`, '-D', dir, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already gone.
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const primaryDir = ownedDirectory(root, 'primary');
    run([`${BIN}/initdb`, '-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
    const primaryPort = await freePort();
    start(primaryDir, primaryPort);
    await query(url(primaryPort, 'postgres'), `create database ${database}`);
    const replicaUrls: string[] = [];
    for (let i = 0; i < replicas; i += 1) {
      const dir = ownedDirectory(root, `replica-${i + 1}`);
      run([
        `${BIN}/pg_basebackup`,
        '-h',
        '127.0.0.1',
        '-p',
        String(primaryPort),
        '-U',
        'postgres',
        '-D',
        dir,
        '-R',
        '-X',
        'stream',
        '--no-sync',
        '--checkpoint=fast',
      ]);
      const port = await freePort();
      start(dir, port);
      replicaUrls.push(url(port));
    }
    return {
      primaryUrl: url(primaryPort),
      replicaUrls,
      pauseReplay: async (replica) => void (await query(replicaUrls[replica]!, 'select pg_wal_replay_pause()')),
      resumeReplay: async (replica) => void (await query(replicaUrls[replica]!, 'select pg_wal_replay_resume()')),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until every replica has replayed everything the primary has committed so far. */
export async function caughtUp(cluster: Cluster): Promise<void> {
  // The insert position, not the write position: with synchronous_commit=off a commit can return
  // before its record is written, and a replica caught up to the write position may not show it yet.
  const [{ lsn }] = await query(cluster.primaryUrl, 'select pg_current_wal_insert_lsn()::text as lsn');
  for (const replica of cluster.replicaUrls) {
    for (let i = 0; ; i += 1) {
      const [{ done }] = await query(replica, `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`);
      if (done) break;
      if (i > 200) throw new Error('replica did not catch up');
      await Bun.sleep(25);
    }
  }
}

export const activityOf = (url: string) =>
  query(url, `select application_name from pg_stat_activity where application_name like 'marketplace-catalogue-%'`) as Promise<
    { application_name: string }[]
  >;
