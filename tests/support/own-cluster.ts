import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestApp, type TestApp } from './harness.ts';

/**
 * A test app on a PostgreSQL cluster of its own, started with `settings` the shared test cluster
 * cannot have (a small lock table, a preloaded library); `close` stops it and removes its files.
 */
export async function createTestAppOnOwnCluster(
  name: string,
  settings: Record<string, string | number>,
  env: Record<string, string> = {},
): Promise<{ t: TestApp; close(): Promise<void> }> {
  const root = mkdtempSync(join(tmpdir(), `marketplace-${name}-`));
  const database = await startEmbeddedPostgres(root, createLogger('silent'), { persistent: false, settings });
  const stop = async () => {
    await database.stop();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const client = new pg.Client({ connectionString: database.url('postgres') });
    await client.connect();
    await client.query('create database marketplace');
    await client.end();
    const t = await createTestApp({ DATABASE_URL: database.url('marketplace'), ...env }, { ownDatabase: true });
    return {
      t,
      async close() {
        await t.close();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
