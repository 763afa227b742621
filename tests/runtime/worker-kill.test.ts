import { afterAll, afterEach, beforeAll, expect, test } from 'bun:test';
import type { Subprocess } from 'bun';
import { MAIL_QUEUE, type MailJob } from '../../src/modules/notifications/notifications.service.ts';
import { startSmtpPeer, type SmtpPeer } from '../notifications/smtp-peer.ts';
import { createTestApp, mintKey, registerDeveloper, type TestApp } from '../support/harness.ts';
import { approvedApp, completeApp } from '../apps/fixtures.ts';
import { signatureMatches, startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { spawnService, within } from './service-process.ts';

/**
 * A worker process (`bun src/main.ts --role worker`, as operators run it) is SIGKILLed in the
 * middle of a job: sending an e-mail, rolling up an app's counters, calling a webhook receiver.
 * Another worker process retries the job, and its effect happens once.
 *
 * The queues' own expiries (60–120 s), backoffs and the 10 s supervision interval would make these
 * tests slow: each job here expires after 3 s and retries after 1 s, the workers look for expired
 * jobs every second (JOBS_SUPERVISE_SECONDS=1), and the webhook's 60 s lease is run out by hand.
 * The mechanism is the same.
 */
let peer: SmtpPeer;
let receiver: Receiver;
let t: TestApp;
const workers: Subprocess[] = [];

beforeAll(async () => {
  peer = await startSmtpPeer();
  receiver = startReceiver();
  // This process serves and enqueues only: the spawned workers are the only ones working jobs.
  t = await createTestApp({ SMTP_URL: peer.url, ALLOW_PRIVATE_FETCH: 'true' }, { role: 'api' });
});
// Each test starts with no worker running: a leftover one would take its jobs.
afterEach(async () => {
  await Promise.all(workers.splice(0).map(kill));
});
afterAll(async () => {
  await t.close();
  await receiver.stop();
  await peer.stop();
});

function startWorker(): Subprocess {
  const worker = spawnService(t.runtime.databaseUrl, {
    role: 'worker',
    env: { SMTP_URL: peer.url, ALLOW_PRIVATE_FETCH: 'true', JOBS_SUPERVISE_SECONDS: '1' },
  });
  workers.push(worker);
  return worker;
}

async function kill(worker: Subprocess) {
  worker.kill('SIGKILL');
  await worker.exited;
}

/** Makes a waiting job of `queue` quick to expire and retry (see above); returns its id. */
async function shortenJob(queue: string, where: string, params: unknown[]): Promise<string> {
  const [job] = await t.sql<{ id: string }>(
    `update pgboss.job set expire_seconds = 3, retry_delay = 1, retry_backoff = false
     where name = ? and state = 'created' and ${where} returning id`,
    [queue, ...params],
  );
  if (!job) throw new Error(`no waiting ${queue} job`);
  return job.id;
}

const jobState = async (id: string) =>
  (await t.sql<{ state: string; retry_count: number }>('select state, retry_count from pgboss.job where id = ?', [id]))[0];

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
  await kill(first);
  // The peer learns of the closed connection on its next turn of the event loop; a release before
  // that would accept the message for a client that is gone.
  await Bun.sleep(300);
  stall.release();
  // The killed worker's connection is gone: the held message was never accepted.
  await Bun.sleep(200);
  expect(peer.received.filter((mail) => mail.messageId === job.messageId)).toHaveLength(0);

  startWorker();
  await within(45_000, 'the retried delivery', async () => peer.received.some((mail) => mail.messageId === job.messageId));
  const done = await within(
    10_000,
    'the job completing',
    async () => (await t.sql(`select state, retry_count from pgboss.job where id = ? and state = 'completed'`, [id]))[0],
  );
  expect(done.retry_count).toBeGreaterThanOrEqual(1);
  expect(peer.received.filter((mail) => mail.messageId === job.messageId)).toHaveLength(1);
  expect(await t.sql('select transport from emails where message_id = ?', [job.messageId])).toEqual([{ transport: 'smtp' }]);
  expect(await t.sql('select 1 from email_claims where message_id = ?', [job.messageId])).toEqual([]);
}, 90_000);

test('a worker killed mid-roll-up: its uncommitted counts vanish with it, and the retry counts every install once', async () => {
  const key = await mintKey(t, await registerDeveloper(t));
  const app = (await approvedApp(t, key, completeApp())) as { id: string; slug: string };
  // Every committed write of the watched app's counters is recorded (a rolled-back one leaves no row);
  // while it is marked `stall`, each write first sleeps, holding the roll-up's transaction open.
  await t.sql('create table rollup_writes (app_id uuid, install_count int, tx bigint)');
  await t.sql('create table rollup_watch (app_id uuid, stall boolean)');
  await t.sql(`create function record_rollup() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from rollup_watch w where w.app_id = new.app_id) then
        if exists (select 1 from rollup_watch w where w.app_id = new.app_id and w.stall) then perform pg_sleep(4); end if;
        insert into rollup_writes values (new.app_id, new.install_count, txid_current());
      end if;
      return new;
    end $$`);
  await t.sql('create trigger record_rollup after insert or update on app_stats for each row execute function record_rollup()');
  await t.sql('insert into rollup_watch values (?, true)', [app.id]);

  for (const installationId of ['ws-1', 'ws-2', 'ws-3']) {
    expect((await t.call('POST', `/api/apps/${app.slug}/install`, { body: { installationId } })).status).toBe(201);
  }
  // The three installs joined one roll-up job (one waits for every install).
  const id = await shortenJob('stats.installs', `singleton_key = 'installs'`, []);

  const first = startWorker();
  await within(
    20_000,
    'the first worker writing the counters',
    // Only the trigger above sleeps (the roll-up's statement is too long for pg_stat_activity to show where it writes).
    async () => (await t.sql(`select 1 from pg_stat_activity where wait_event = 'PgSleep'`)).length > 0,
  );
  expect((await jobState(id))?.state).toBe('active');
  await kill(first);
  await t.sql('update rollup_watch set stall = false');
  // Its transaction can never commit: the process that would have sent COMMIT is gone.
  expect(await t.sql('select * from rollup_writes where app_id = ?', [app.id])).toEqual([]);

  startWorker();
  const done = await within(45_000, 'the retried roll-up completing', async () => {
    const job = await jobState(id);
    return job?.state === 'completed' && job;
  });
  expect(done.retry_count).toBeGreaterThanOrEqual(1);
  // One transaction committed (it writes the counters row once per pass: installs, then activity), counting all three.
  expect(await t.sql('select distinct tx, install_count from rollup_writes where app_id = ?', [app.id])).toEqual([
    { tx: expect.anything(), install_count: 3 },
  ]);
  expect((await t.sql('select install_count from app_stats where app_id = ?', [app.id]))[0].install_count).toBe(3);
  expect((await t.call('GET', `/api/apps/${app.slug}`)).body.installCount).toBe(3);
  process.stderr.write(`worker-kill roll-up: killed mid-write, retry ${done.retry_count}, 1 committed transaction, installCount 3 of 3 installs\n`);
}, 90_000);

test('a worker killed mid-webhook: the retry sends the same webhook-id, and the delivery succeeds once', async () => {
  const developer = await registerDeveloper(t);
  const key = await mintKey(t, developer);
  const created = await t.call('POST', '/api/dev/webhooks', { token: key, body: { url: receiver.url('/killed'), events: ['app.approved'] } });
  expect(created.status).toBe(201);
  let answer!: () => void;
  const held = new Promise<Response>((resolve) => (answer = () => resolve(new Response(null, { status: 200 }))));
  receiver.answer('/killed', () => held);
  const ping = await t.call('POST', `/api/dev/webhooks/${created.body.id}/test`, { token: key });
  expect(ping.status).toBe(201);
  const deliveryId = ping.body.id as string;
  const id = await shortenJob('webhooks.deliver', "data->>'deliveryId' = ?", [deliveryId]);
  const row = async () =>
    (await t.sql('select status, attempts, status_code, leased_until > now() as leased from webhook_deliveries where id = ?', [deliveryId]))[0];

  const first = startWorker();
  await within(20_000, 'the first attempt reaching the receiver', async () => receiver.at('/killed').length === 1);
  // Claimed and in the receiver's hands, with no answer yet.
  expect(await row()).toMatchObject({ status: 'pending', attempts: 1, status_code: null, leased: true });
  await kill(first);
  answer(); // too late: the connection it would answer on is gone
  // As if the attempt's 60 s lease had run out (the queue's own retry comes later than that).
  await t.sql('update webhook_deliveries set leased_until = now() where id = ?', [deliveryId]);

  startWorker();
  const settled = await within(45_000, 'the retried delivery succeeding', async () => {
    const current = await row();
    return current?.status === 'succeeded' && current;
  });
  expect(settled).toMatchObject({ attempts: 2, status_code: 200 });
  const requests = receiver.at('/killed');
  expect(requests).toHaveLength(2);
  expect(requests[1]!.headers['webhook-id']).toBe(requests[0]!.headers['webhook-id']);
  expect(requests[1]!.body).toBe(requests[0]!.body);
  expect(signatureMatches(created.body.secret, requests[1]!)).toBe(true);
  const job = await within(10_000, 'the job completing', async () => {
    const current = await jobState(id);
    return current?.state === 'completed' && current;
  });
  expect(job.retry_count).toBeGreaterThanOrEqual(1);
  // Nothing else is scheduled for it.
  expect(
    await t.sql(`select state from pgboss.job where name = 'webhooks.deliver' and data->>'deliveryId' = ? and state <> 'completed'`, [deliveryId]),
  ).toEqual([]);
  await Bun.sleep(1_500);
  expect(receiver.at('/killed')).toHaveLength(2);
  process.stderr.write(
    `worker-kill webhook: killed mid-request, 2 requests with one webhook-id, answered once, delivery succeeded after ${settled.attempts} attempts\n`,
  );
}, 90_000);
