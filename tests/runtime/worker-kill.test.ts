import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { MAIL_QUEUE, type MailJob } from '../../src/modules/notifications/notifications.service.ts';
import { startSmtpPeer, type SmtpPeer } from '../notifications/smtp-peer.ts';
import { createTestApp, registerDeveloper, type TestApp } from '../support/harness.ts';

/**
 * A worker process (`bun src/main.ts --role worker`, as operators run it) is SIGKILLed while it
 * is sending an e-mail. Another worker process retries the job, and the message is delivered once.
 */
let peer: SmtpPeer;
let t: TestApp;
const workers: Subprocess[] = [];

beforeAll(async () => {
  peer = await startSmtpPeer();
  // This process serves and enqueues only: the spawned workers are the only ones working jobs.
  t = await createTestApp({ SMTP_URL: peer.url }, { role: 'api' });
});
afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await Promise.all(workers.map((worker) => worker.exited));
  await t.close();
  await peer.stop();
});

function startWorker(): Subprocess {
  const worker = Bun.spawn(['bun', 'src/main.ts', '--role', 'worker'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      APP_ENV: 'test',
      DATABASE_URL: t.runtime.databaseUrl,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'marketplace-worker-')),
      SMTP_URL: peer.url,
      LOG_LEVEL: 'error',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  workers.push(worker);
  return worker;
}

async function within<T>(ms: number, what: string, check: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await Bun.sleep(100);
  }
}

test('a worker killed mid-send: the job is retried by another worker and the message is delivered once', async () => {
  const developer = await registerDeveloper(t, { verified: false });
  await t.sql(`update developers set email = 'killed-mid-send@example.com' where id = ?`, [developer.id]);
  const job: MailJob = { messageId: `developer-verified:${developer.id}`, kind: 'developer-verified', developerId: developer.id };
  const stall = peer.stallNext('killed-mid-send@example.com');
  // The queue's own expiry (120 s) and backoff (from 5 s) would make this test slow; this job
  // expires after 3 s and retries after 1 s. The mechanism is the same.
  const id = await t.ctx.boss.send(MAIL_QUEUE, job, { singletonKey: job.messageId, expireInSeconds: 3, retryDelay: 1, retryBackoff: false });

  const first = startWorker();
  await Promise.race([stall.arrived, Bun.sleep(20_000).then(() => Promise.reject(new Error('the first worker never reached SMTP')))]);
  // It holds the claim while SMTP has the message and has not answered.
  expect(await t.sql('select job_id, attempt from email_claims where message_id = ?', [job.messageId])).toEqual([{ job_id: id, attempt: 0 }]);
  first.kill('SIGKILL');
  await first.exited;
  stall.release();
  // The killed worker's connection is gone: the held message was never accepted.
  await Bun.sleep(200);
  expect(peer.received.filter((mail) => mail.messageId === job.messageId)).toHaveLength(0);

  startWorker();
  await within(45_000, 'the retried delivery', async () => peer.received.some((mail) => mail.messageId === job.messageId));
  const done = await within(10_000, 'the job completing', async () => (await t.sql(`select state, retry_count from pgboss.job where id = ? and state = 'completed'`, [id]))[0]);
  expect(done.retry_count).toBeGreaterThanOrEqual(1);
  expect(peer.received.filter((mail) => mail.messageId === job.messageId)).toHaveLength(1);
  expect(await t.sql('select transport from emails where message_id = ?', [job.messageId])).toEqual([{ transport: 'smtp' }]);
  expect(await t.sql('select 1 from email_claims where message_id = ?', [job.messageId])).toEqual([]);
}, 90_000);
