import { afterAll, beforeAll, expect, test } from 'bun:test';
import { eventually } from '../support/eventually.ts';
import { createTestApp, registerDeveloper, type TestApp } from '../support/harness.ts';
import { transitionDeveloper } from '../../src/modules/developers/developers.service.ts';
import { CLI_ACTOR } from '../../src/modules/audit/audit.service.ts';
import { startSmtpPeer, type SmtpPeer } from './smtp-peer.ts';

/** What the mail job promises under trouble: no transaction open while SMTP talks, and an outage loses and doubles nothing. */
let peer: SmtpPeer & { port: number };
let t: TestApp;

beforeAll(async () => {
  peer = await startSmtpPeer();
  t = await createTestApp({ SMTP_URL: peer.url });
});
let peerRunning = true;
afterAll(async () => {
  await t.close();
  if (peerRunning) await peer.stop();
});

const openTransactions = () =>
  t.sql<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity
     where datname = current_database() and pid <> pg_backend_pid() and state like 'idle in transaction%'`,
  );

test('while SMTP holds a message, no database transaction is open and the message is claimed', async () => {
  const stall = peer.stallNext('held@example.com');
  const developer = await registerDeveloper(t, { verified: false });
  await t.sql(`update developers set email = 'held@example.com' where id = ?`, [developer.id]);
  const messageId = `developer-verified:${developer.id}`;
  await transitionDeveloper({ em: t.ctx.orm.em.fork(), jobs: t.ctx.jobs }, developer.id, 'verify', CLI_ACTOR);

  await stall.arrived;
  for (let sample = 0; sample < 5; sample++) {
    expect(await openTransactions()).toEqual([{ n: 0 }]);
    await Bun.sleep(50);
  }
  expect(await t.sql('select message_id from email_claims')).toEqual([{ message_id: messageId }]);
  expect(await t.sql('select 1 from emails where message_id = ?', [messageId])).toEqual([]);

  stall.release();
  await eventually(async () => (await t.sql('select 1 from emails where message_id = ?', [messageId])).length === 1);
  expect(peer.received.filter((mail) => mail.messageId === messageId)).toHaveLength(1);
  expect(await t.sql('select message_id from email_claims')).toEqual([]);
});

test('an SMTP outage delays every message, then each is delivered exactly once', async () => {
  await peer.stop();
  peerRunning = false;
  const developers = await Promise.all([1, 2, 3, 4, 5].map(() => registerDeveloper(t)));
  const ids = developers.map((developer) => `developer-verified:${developer.id}`);
  // Every first attempt meets a closed port and is retried with backoff.
  const failedAttempts = async () =>
    (
      await t.sql<{ n: number }>(
        `select count(*)::int as n from pgboss.job where name = 'mail.send' and singleton_key = any(cast(? as text[])) and retry_count + (state = 'retry')::int > 0`,
        [`{${ids.join(',')}}`],
      )
    )[0]!.n;
  const deadlineForFailures = Date.now() + 15_000;
  while ((await failedAttempts()) < 5 && Date.now() < deadlineForFailures) await Bun.sleep(100);
  expect(await failedAttempts()).toBe(5);
  expect(await t.sql('select message_id from emails where message_id = any(cast(? as text[]))', [`{${ids.join(',')}}`])).toEqual([]);

  peer = await startSmtpPeer(peer.port);
  peerRunning = true;
  // Their retries fall due now rather than after the queue's backoff (from 5 s): when they run is
  // the queue's policy, not what this test is about.
  await t.sql(`update pgboss.job set start_after = now() where name = 'mail.send' and state = 'retry' and singleton_key = any(cast(? as text[]))`, [
    `{${ids.join(',')}}`,
  ]);
  const deadline = Date.now() + 40_000;
  while (ids.some((id) => !peer.received.some((mail) => mail.messageId === id)) && Date.now() < deadline) await Bun.sleep(200);
  for (const id of ids) expect(peer.received.filter((mail) => mail.messageId === id)).toHaveLength(1);
  await eventually(
    async () => (await t.sql('select count(*)::int as n from emails where message_id = any(cast(? as text[]))', [`{${ids.join(',')}}`]))[0].n === 5,
  );
  // Still once each, and nothing left that could send again: every job of theirs has finished.
  await eventually(
    async () =>
      (
        await t.sql(
          `select 1 from pgboss.job where name = 'mail.send' and singleton_key = any(cast(? as text[])) and state in ('created', 'retry', 'active')`,
          [`{${ids.join(',')}}`],
        )
      ).length === 0,
  );
  for (const id of ids) expect(peer.received.filter((mail) => mail.messageId === id)).toHaveLength(1);
}, 60_000);
