import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { deadLetterQueues } from '../../jobs/registry.ts';
import { APP_STATS_QUEUE } from '../../src/modules/stats/stats.service.ts';
import { notifyDeveloperVerified } from '../../src/modules/notifications/notifications.service.ts';
import { eventually } from '../support/eventually.ts';
import { insertDeveloper } from '../support/fixtures.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';

/** The once-only promises of the job system, against real PostgreSQL and the service's own queues and handlers. */
let t: TestApp;
beforeAll(async () => {
  // No SMTP_URL: a sent notification is its `emails` row (the dev outbox), which makes the effect easy to see.
  t = await createTestApp();
});
afterAll(() => t.close());

const mailJobsFor = (messageId: string) => t.sql('select id, state from pgboss.job where name = ? and singleton_key = ?', ['mail.send', messageId]);
const sent = (messageId: string) => t.sql('select message_id from emails where message_id = ?', [messageId]);

describe('transactional enqueue', () => {
  test('a job enqueued in a transaction that rolls back never exists, so never runs', async () => {
    const developer = await insertDeveloper(t);
    const messageId = `developer-verified:${developer}`;
    const outcome = await t.ctx.orm.em
      .fork()
      .transactional(async (tx) => {
        await tx.execute(`update developers set status = 'VERIFIED' where id = ?`, [developer]);
        await notifyDeveloperVerified(t.ctx.jobs, tx, developer);
        // The enqueue is in the transaction: visible inside it...
        expect(await tx.execute('select 1 from pgboss.job where singleton_key = ?', [messageId])).toHaveLength(1);
        throw new Error('the change fails after its job was enqueued');
      })
      .catch((error: Error) => error.message);
    expect(outcome).toBe('the change fails after its job was enqueued');
    // ...and gone with it.
    // No job exists, so nothing can ever send it (no clock to wait on).
    expect(await mailJobsFor(messageId)).toEqual([]);
    expect(await sent(messageId)).toEqual([]);
  });

  test('a job enqueued in a transaction that commits always runs', async () => {
    const developer = await insertDeveloper(t);
    const messageId = `developer-verified:${developer}`;
    await t.ctx.orm.em.fork().transactional(async (tx) => {
      await notifyDeveloperVerified(t.ctx.jobs, tx, developer);
      // Not visible to anyone (the workers included) before the commit.
      expect(await mailJobsFor(messageId)).toEqual([]);
    });
    await eventually(async () => (await sent(messageId)).length === 1);
    await eventually(async () => (await mailJobsFor(messageId))[0]?.state === 'completed');
  });
});

describe('dead letters', () => {
  test("after its last retry a job lands in its queue's dead-letter queue, listed in the registry", async () => {
    const deadLetter = deadLetterQueues.find((entry) => entry.queue === APP_STATS_QUEUE)!.deadLetter;
    // A payload the handler cannot process (not a uuid), with one retry and no wait, so it fails fast.
    const id = await t.ctx.boss.send(APP_STATS_QUEUE, { appId: 'not-an-app-id' }, { retryLimit: 1, retryDelay: 0 });
    const failed = await eventually(
      async () => (await t.sql(`select state, retry_count from pgboss.job where id = ? and state = 'failed'`, [id]))[0],
    );
    expect(failed.retry_count).toBe(1);
    const [letter] = await eventually(async () => {
      const rows = await t.sql('select data, source_id, state from pgboss.job where name = ?', [deadLetter]);
      return rows.length > 0 ? rows : null;
    });
    expect(letter).toMatchObject({ data: { appId: 'not-an-app-id' }, source_id: id, state: 'created' });
    // pg-boss's own API finds it there, as the console's Jobs page will.
    const found = await t.ctx.boss.findJobs(deadLetter, { data: { appId: 'not-an-app-id' } });
    expect(found.map((job) => job.sourceName)).toEqual([APP_STATS_QUEUE]);
  });
});
