import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { activityOf, caughtUp, startCluster, type Cluster } from '../support/streaming-replica.ts';
import { approvedApp, createApp, deps } from '../apps/fixtures.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';

/**
 * `DATABASE_REPLICA_URLS` against real streaming replicas of the test's own primary: the public
 * catalogue reads from the replicas (with the catalogue version read from the same replica as the
 * data), while the developer API reads its own writes from the primary.
 */
let cluster: Cluster;
let t: TestApp;

beforeAll(async () => {
  cluster = await startCluster(2);
  t = await createTestApp({ DATABASE_URL: cluster.primaryUrl, DATABASE_REPLICA_URLS: cluster.replicaUrls.join(',') }, { ownDatabase: true });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await cluster?.stop();
});

const publicIds = async () => ((await t.call('GET', '/api/apps?limit=100')).body.data as { id: string }[]).map((app) => app.id);

test('public catalogue reads go to the replicas, never the primary; developer reads stay on the primary', async () => {
  const developer = await registerDeveloper(t);
  const key = await mintKey(t, developer);
  const app = await approvedApp(t, key);
  await caughtUp(cluster);
  for (let i = 0; i < 4; i += 1) {
    expect((await t.call('GET', `/api/apps?limit=${i + 1}`)).status).toBe(200);
    expect((await t.call('GET', `/api/apps/${app.slug}`)).status).toBe(200);
  }
  const onReplicas = await Promise.all(cluster.replicaUrls.map(activityOf));
  expect(onReplicas.map((rows) => rows.map((row) => row.application_name))).toEqual([
    expect.arrayContaining(['marketplace-catalogue-replica-1']),
    expect.arrayContaining(['marketplace-catalogue-replica-2']),
  ]);
  expect(await activityOf(cluster.primaryUrl)).toEqual([]);
}, 60_000);

test('a lagging replica never leaves stale rows cached once it catches up; read-your-writes stays on the primary', async () => {
  const developer = await registerDeveloper(t);
  const key = await mintKey(t, developer);
  const pending = await createApp(t, key);
  expect((await t.call('POST', `/api/dev/apps/${pending.id}/submit`, { token: key })).status).toBe(200);
  await caughtUp(cluster);
  expect(await publicIds()).not.toContain(pending.id);

  await cluster.pauseReplay(0);
  try {
    await decideApp(deps(t), pending.id, 'approve', { actor: CLI_ACTOR });
    // The owner sees the approval at once: the developer API reads the primary.
    expect((await t.call('GET', `/api/dev/apps/${pending.id}`, { token: key })).body.status).toBe('APPROVED');
    // Replica 2 serves the approval; replica 1, held back, serves the catalogue as it was. Answers
    // from both are asked for and cached while they disagree.
    let seen = false;
    for (let i = 0; i < 100 && !seen; i += 1) {
      for (let j = 0; j < 4; j += 1) seen ||= (await publicIds()).includes(pending.id);
      if (!seen) await Bun.sleep(50);
    }
    expect(seen as boolean).toBe(true);
    for (let j = 0; j < 6; j += 1) await publicIds();
  } finally {
    await cluster.resumeReplay(0);
  }
  await caughtUp(cluster);
  // Within a second of replica 1 catching up, no answer from either replica, cached or not, is old.
  await Bun.sleep(1_000);
  for (let i = 0; i < 8; i += 1) expect(await publicIds()).toContain(pending.id);
}, 60_000);
