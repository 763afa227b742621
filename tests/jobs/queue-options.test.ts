import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { declareQueues, defineQueue, deadLetterOf, PGBOSS_SCHEMA } from '../../jobs/queues.ts';
import { deadLetterQueues, queues } from '../../jobs/registry.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';

/** Queue options live in code; a deploy that changes them must change the queues that already exist. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const silent = createLogger('silent');
const noop = async () => {};

describe('declareQueues', () => {
  test('every option, policy included, reaches a queue created with other options', async () => {
    const name = 'test.options-change';
    // The queue as an older release created it.
    await t.ctx.boss.createQueue(name, {
      policy: 'standard',
      retryLimit: 1,
      retryDelay: 60,
      retryBackoff: true,
      retryDelayMax: 900,
      expireInSeconds: 30,
      heartbeatSeconds: 20,
    });
    const definition = (options: object) => defineQueue({ name, options, work: { batchSize: 1, localConcurrency: 1 }, handler: noop });
    await declareQueues(
      t.ctx.boss,
      [definition({ policy: 'short', retryLimit: 7, retryDelay: 3, expireInSeconds: 45 })],
      t.ctx.config.retention,
      silent,
    );
    const queue = await t.ctx.boss.getQueue(name);
    expect(queue).toMatchObject({
      policy: 'short',
      retryLimit: 7,
      retryDelay: 3,
      retryBackoff: false,
      expireInSeconds: 45,
      deadLetter: deadLetterOf(name),
      deleteAfterSeconds: t.ctx.config.retention.jobs,
    });
    // Options no longer in the definition go back to pg-boss's defaults instead of lingering.
    expect(queue!.retryDelayMax ?? null).toBeNull();
    expect(queue!.heartbeatSeconds ?? null).toBeNull();
    expect(await t.ctx.boss.getQueue(deadLetterOf(name))).toMatchObject({ retentionSeconds: t.ctx.config.retention.deadLetters });

    // And the backoff cap, set again, is set (pg-boss's createQueue alone would keep the old value).
    await declareQueues(t.ctx.boss, [definition({ policy: 'short', retryBackoff: true, retryDelayMax: 120 })], t.ctx.config.retention, silent);
    expect(await t.ctx.boss.getQueue(name)).toMatchObject({ retryBackoff: true, retryDelayMax: 120 });

    // The new policy holds: one waiting job per singleton key.
    expect(await t.ctx.boss.send(name, {}, { singletonKey: 'k' })).not.toBeNull();
    expect(await t.ctx.boss.send(name, {}, { singletonKey: 'k' })).toBeNull();
  });

  test('a policy migration keeps the waiting jobs the new policy admits and cancels the duplicates it would have refused', async () => {
    const name = 'test.policy-migration';
    await t.ctx.boss.createQueue(name, { policy: 'standard' });
    const sent = [];
    for (const key of ['a', 'a', 'a', 'b']) sent.push(await t.ctx.boss.send(name, { key }, { singletonKey: key }));
    await declareQueues(
      t.ctx.boss,
      [defineQueue({ name, options: { policy: 'exclusive' }, work: { batchSize: 1, localConcurrency: 1 }, handler: noop })],
      t.ctx.config.retention,
      silent,
    );
    const jobs = await t.sql<{ id: string; state: string; policy: string }>(
      `select id, state, policy from ${PGBOSS_SCHEMA}.job where name = ? order by created_on, id`,
      [name],
    );
    const byId = new Map(jobs.map((job) => [job.id, job]));
    // The first job of each key stays, now under the new policy; the later 'a's are cancelled.
    expect(byId.get(sent[0]!)).toMatchObject({ state: 'created', policy: 'exclusive' });
    expect(byId.get(sent[3]!)).toMatchObject({ state: 'created', policy: 'exclusive' });
    expect([byId.get(sent[1]!)?.state, byId.get(sent[2]!)?.state]).toEqual(['cancelled', 'cancelled']);
    expect((await t.ctx.boss.getQueue(name))?.policy).toBe('exclusive');
    expect(await t.ctx.boss.send(name, { key: 'b' }, { singletonKey: 'b' })).toBeNull();

    // Declaring again changes nothing.
    await declareQueues(
      t.ctx.boss,
      [defineQueue({ name, options: { policy: 'exclusive' }, work: { batchSize: 1, localConcurrency: 1 }, handler: noop })],
      t.ctx.config.retention,
      silent,
    );
    expect(await t.sql(`select count(*)::int as n from ${PGBOSS_SCHEMA}.job where name = ? and state = 'created'`, [name])).toEqual([{ n: 2 }]);
  });

  test("the service's own queues match their definitions after start-up, each with its dead-letter queue", async () => {
    for (const queue of queues) {
      const stored = await t.ctx.boss.getQueue(queue.name);
      expect(stored).toMatchObject({ ...queue.options, policy: queue.options.policy ?? 'standard', deadLetter: deadLetterOf(queue.name) });
      expect(await t.ctx.boss.getQueue(deadLetterOf(queue.name))).not.toBeNull();
    }
    expect(deadLetterQueues.map((entry) => entry.queue)).toEqual(queues.map((queue) => queue.name));
  });
});
