import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp, createApp, deps } from '../apps/fixtures.ts';
import { decideApp, setFeatured } from '../../src/modules/apps/app-admin.service.ts';
import { bumpCatalogueVersion } from '../../src/modules/catalogue/catalogue-version.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { freePort } from '../../src/db/embedded.ts';

/**
 * Each API process caches public responses in its own memory. Two real API processes on one
 * database, each with warm caches: every kind of change made elsewhere (here, in the test's own
 * process, as the CLI or the console would) is served by both within 1 s of its commit.
 */
let t: TestApp;
const processes: { port: number; child: ReturnType<typeof Bun.spawn> }[] = [];

async function startApi(databaseUrl: string) {
  const port = await freePort();
  const child = Bun.spawn(['bun', 'src/main.ts', '--role', 'api'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      APP_ENV: 'test',
      DATABASE_URL: databaseUrl,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'marketplace-api-')),
      PORT: String(port),
      LOG_LEVEL: 'warn',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  processes.push({ port, child });
  for (let i = 0; i < 150; i += 1) {
    if (
      (await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      )) === 200
    )
      return port;
    await Bun.sleep(100);
  }
  throw new Error('API process did not become ready');
}

beforeAll(async () => {
  t = await createTestApp();
  await startApi(t.runtime.databaseUrl);
  await startApi(t.runtime.databaseUrl);
}, 60_000);
afterAll(async () => {
  for (const { child } of processes) child.kill('SIGTERM');
  await Promise.all(processes.map(({ child }) => child.exited));
  await t.close();
});

const getFrom = async (port: number, path: string) => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: response.status === 200 ? ((await response.json()) as any) : undefined };
};

/** How long after `since` every process answered as `seen` says; fails past 1 s. */
async function servedEverywhereWithinOneSecond(since: number, path: string, seen: (response: { status: number; body: any }) => boolean) {
  for (const { port } of processes) {
    for (;;) {
      if (seen(await getFrom(port, path))) break;
      expect(performance.now() - since).toBeLessThan(1_000);
      await Bun.sleep(20);
    }
  }
}

/** Both processes have the path cached (asked twice each) before the change. */
async function warm(path: string) {
  for (const { port } of processes) for (let i = 0; i < 2; i += 1) await getFrom(port, path);
}

test('approval, suspension, featuring, a support edit and a rolled-up counter reach both processes within 1 s', async () => {
  const developer = await registerDeveloper(t);
  const key = await mintKey(t, developer);
  const live = await approvedApp(t, key);
  const pending = await createApp(t, key);
  expect((await t.call('POST', `/api/dev/apps/${pending.id}/submit`, { token: key })).status).toBe(200);
  const ids = (response: { body: any }) => ((response.body?.data ?? []) as { id: string }[]).map((app) => app.id);

  await warm('/api/apps?limit=100');
  await decideApp(deps(t), pending.id, 'approve', { actor: CLI_ACTOR });
  await servedEverywhereWithinOneSecond(performance.now(), '/api/apps?limit=100', (r) => ids(r).includes(pending.id));

  await warm(`/api/apps/${live.slug}`);
  await decideApp(deps(t), live.id, 'suspend', { actor: CLI_ACTOR });
  await servedEverywhereWithinOneSecond(performance.now(), `/api/apps/${live.slug}`, (r) => r.status === 410);

  await warm('/api/apps/featured/list');
  await setFeatured(deps(t), pending.id, true, CLI_ACTOR);
  await servedEverywhereWithinOneSecond(performance.now(), '/api/apps/featured/list', (r) => ids(r).includes(pending.id));

  // A support edit (the console's service changes the text and bumps the version in its transaction).
  await warm(`/api/apps/${pending.slug}`);
  await t.ctx.orm.em.fork().transactional(async (tx) => {
    await tx.execute(`update apps set description = 'Edited by support.' where id = ?`, [pending.id]);
    await bumpCatalogueVersion(tx);
  });
  await servedEverywhereWithinOneSecond(performance.now(), `/api/apps/${pending.slug}`, (r) => r.body?.description === 'Edited by support.');

  // An install through one process; the roll-up job (in the test's worker) commits the counter.
  const before = (await getFrom(processes[0]!.port, `/api/apps/${pending.slug}`)).body.installCount as number;
  const install = await fetch(`http://127.0.0.1:${processes[1]!.port}/api/apps/${pending.slug}/install`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ installationId: 'two-processes' }),
  });
  expect(install.status).toBe(201);
  let rolledUpAt = 0;
  for (let i = 0; i < 250 && !rolledUpAt; i += 1) {
    const [row] = await t.sql<{ install_count: number }>('select install_count from app_stats where app_id = ?', [pending.id]);
    if (row!.install_count === before + 1) rolledUpAt = performance.now();
    else await Bun.sleep(20);
  }
  expect(rolledUpAt).toBeGreaterThan(0);
  await servedEverywhereWithinOneSecond(rolledUpAt, `/api/apps/${pending.slug}`, (r) => r.body?.installCount === before + 1);
}, 60_000);
