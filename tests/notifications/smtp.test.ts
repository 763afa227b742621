import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, mintKey, registerDeveloper, type TestApp, type TestDeveloper } from '../support/harness.ts';
import { decideApp } from '../../src/modules/apps/app-admin.service.ts';
import { decideRevision } from '../../src/modules/apps/revisions.service.ts';
import type { Actor } from '../../src/modules/audit/audit.service.ts';
import { MAIL_QUEUE, type MailJob } from '../../src/modules/notifications/notifications.service.ts';
import { mailQueue, sendNotification } from '../../jobs/mail.ts';
import { MessageClaimedError } from '../../src/modules/notifications/mail-delivery.ts';
import { approvedApp, createApp, deps, refusal } from '../apps/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { startSmtpPeer, type ReceivedMail, type SmtpPeer } from './smtp-peer.ts';

let peer: SmtpPeer;
let t: TestApp;
const reviewer: Actor = { label: 'admin:reviewer-mail' };

beforeAll(async () => {
  peer = await startSmtpPeer();
  t = await createTestApp({ SMTP_URL: peer.url });
});
afterAll(async () => {
  await t.close();
  await peer.stop();
});

const mailsTo = (address: string) => peer.received.filter((mail) => mail.to.includes(address));
/** Waits (at most 5 s) for the message the predicate picks out. */
const mailArrives = (address: string, pick: (mail: ReceivedMail) => boolean) => eventually(async () => mailsTo(address).find(pick));
const mailJobs = (appId: string) => t.sql(`select id from pgboss.job where name = ? and data->>'appId' = ?`, [MAIL_QUEUE, appId]);

/** A developer of the test's own, with a key: the mail to their address is that test's alone. */
async function developer(): Promise<{ dev: TestDeveloper; key: string }> {
  const dev = await registerDeveloper(t);
  return { dev, key: await mintKey(t, dev) };
}

async function submitted(key: string, name: string) {
  const app = await createApp(t, key, { ...completeListing(), name });
  const response = await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key });
  expect(response.status).toBe(200);
  return response.body as { id: string; version: number; name: string };
}

let listings = 0;
const completeListing = () => ({
  name: `Mail App ${++listings}`,
  description: 'Sends nothing itself.',
  category: 'PRODUCTIVITY',
  environment: 'production',
  logoUrl: 'https://cdn.example.com/logo.png',
  screenshots: [{ url: 'https://cdn.example.com/one.png' }, { url: 'https://cdn.example.com/two.png' }],
});

// Each test mails a developer of its own and waits for that mail, so they wait side by side.
describe.concurrent('notification e-mails over SMTP', () => {
  test('verification mails the developer within 5 s, HTML and text, from MAIL_FROM', async () => {
    const fresh = await registerDeveloper(t);
    const mail = await mailArrives(fresh.email, (m) => m.messageId === `developer-verified:${fresh.id}`);
    expect(mail.subject).toBe('Your developer account is verified');
    expect(mail.from).toBe('App Marketplace <no-reply@marketplace.local>');
    expect(mail.html).toContain('An administrator has verified your developer account');
    expect(mail.text).toContain('You can now create API keys');
    // The record is written after SMTP accepts the message: wait for it.
    const row = await eventually(
      async () => (await t.sql('select transport, to_address, developer_id, sent_at from emails where message_id = ?', [mail.messageId]))[0],
    );
    expect(row).toMatchObject({ transport: 'smtp', to_address: fresh.email, developer_id: fresh.id });
    expect(row.sent_at).not.toBeNull();
  });

  test('approval names the app in the subject', async () => {
    const { dev, key } = await developer();
    const app = await approvedApp(t, key, { ...completeListing(), name: 'Approved Timer' });
    const mail = await mailArrives(dev.email, (m) => m.messageId.startsWith(`app-approved:${app.id}:v${app.version}:`));
    expect(mail.subject).toBe('"Approved Timer" is approved and live');
    expect(mail.text).toContain('Your app "Approved Timer" passed review');
    // The record is written after SMTP accepts the message: wait for it.
    const row = await eventually(async () => (await t.sql('select app_id, developer_id from emails where message_id = ?', [mail.messageId]))[0]);
    expect(row).toEqual({ app_id: app.id, developer_id: dev.id });
  });

  test('rejection carries the reason, escaped in the HTML, and how to resubmit', async () => {
    const { dev, key } = await developer();
    const app = await submitted(key, 'Rejected Timer');
    const reason = 'Screenshots show <script>alert(1)</script> & the logo is blurry.';
    await decideApp(deps(t), app.id, 'reject', { actor: reviewer, reason });
    const mail = await mailArrives(dev.email, (m) => m.messageId.startsWith(`app-rejected:${app.id}:`));
    expect(mail.subject).toBe('"Rejected Timer" was not approved');
    expect(mail.html).toContain('Screenshots show &lt;script&gt;alert(1)&lt;/script&gt; &amp; the logo is blurry.');
    expect(mail.html).not.toContain('<script>');
    expect(mail.text).toContain(`> ${reason}`);
    expect(mail.text).toContain(`PUT /api/dev/apps/${app.id}`);
    expect(mail.text).toContain(`POST /api/dev/apps/${app.id}/submit`);
  });

  test('an unchanged listing rejected twice gets two mails, each with its own reason', async () => {
    const { dev, key } = await developer();
    const app = await submitted(key, 'Twice Rejected');
    await decideApp(deps(t), app.id, 'reject', { actor: reviewer, reason: 'First: no privacy policy.' });
    await mailArrives(dev.email, (m) => m.text.includes('First: no privacy policy.'));
    expect((await t.call('POST', `/api/dev/apps/${app.id}/submit`, { token: key })).status).toBe(200);
    await decideApp(deps(t), app.id, 'reject', { actor: reviewer, reason: 'Second: still no privacy policy.' });
    await mailArrives(dev.email, (m) => m.text.includes('Second: still no privacy policy.'));
    // The resubmission moved the version (every submission does); each rejection is mailed once.
    const rejections = mailsTo(dev.email).filter((m) => m.messageId.startsWith(`app-rejected:${app.id}:`));
    expect(rejections).toHaveLength(2);
    expect(rejections[0]!.text).not.toContain('Second');
  });

  test('revision decisions mail the developer, the rejection with its reason', async () => {
    const { dev, key } = await developer();
    const app = await approvedApp(t, key, { ...completeListing(), name: 'Revised Timer' });
    const proposed = await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { name: 'Revised Timer Pro' } });
    expect(proposed.status).toBe(201);
    await decideRevision(deps(t), app.id, 'approve', { actor: reviewer });
    const approved = await mailArrives(dev.email, (m) => m.subject === 'Your changes to "Revised Timer Pro" are live');
    expect(approved.messageId).toStartWith('revision-approved:');

    expect((await t.call('POST', `/api/dev/apps/${app.id}/revisions`, { token: key, body: { description: 'Now <b>bold</b>.' } })).status).toBe(201);
    await decideRevision(deps(t), app.id, 'reject', { actor: reviewer, reason: 'Marketing <b>claims</b> need sources.' });
    const rejected = await mailArrives(dev.email, (m) => m.subject === 'Your changes to "Revised Timer Pro" were not approved');
    expect(rejected.html).toContain('Marketing &lt;b&gt;claims&lt;/b&gt; need sources.');
    expect(rejected.text).toContain(`open a new revision with POST /api/dev/apps/${app.id}/revisions`);
  });

  test('a decision that rolls back (STALE_VERSION) enqueues and sends nothing', async () => {
    const { dev, key } = await developer();
    const app = await submitted(key, 'Stale Timer');
    expect(await refusal(decideApp(deps(t), app.id, 'approve', { actor: reviewer, version: app.version + 1 }))).toMatchObject({
      status: 409,
      code: 'STALE_VERSION',
    });
    expect(await mailJobs(app.id)).toEqual([]);
    await decideApp(deps(t), app.id, 'approve', { actor: reviewer, version: app.version });
    await mailArrives(dev.email, (m) => m.messageId.startsWith(`app-approved:${app.id}:`));
    expect(mailsTo(dev.email).filter((m) => m.messageId.includes(app.id))).toHaveLength(1);
    expect(await mailJobs(app.id)).toHaveLength(1);
  });

  test('one message id is delivered once, however often its job runs', async () => {
    const other = await registerDeveloper(t, { verified: false });
    const job: MailJob = { messageId: `developer-verified:${other.id}`, kind: 'developer-verified', developerId: other.id };
    // Two attempts at once: one holds the claim and sends; the other finds it held (to retry later) or already sent.
    const outcomes = await Promise.allSettled([sendNotification(t.ctx, job), sendNotification(t.ctx, job)]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(MessageClaimedError);
    // The retry finds the record and sends nothing.
    await sendNotification(t.ctx, job);
    expect(mailsTo(other.email)).toHaveLength(1);
    expect(await t.sql('select message_id from emails where developer_id = ?', [other.id])).toEqual([{ message_id: job.messageId }]);

    // Sent again as a job (the queue has none left for this id, so it is accepted): it finds the row and completes.
    const id = await t.ctx.boss.send(MAIL_QUEUE, job, { singletonKey: job.messageId });
    await eventually(async () => (await t.sql(`select state from pgboss.job where id = ?`, [id]))[0]?.state === 'completed');
    expect(mailsTo(other.email)).toHaveLength(1);
  });

  // Serial: it adds a fast-polling worker to the whole mail queue while it runs.
  test.serial('an SMTP refusal is retried, and the message is then delivered exactly once', async () => {
    const other = await registerDeveloper(t, { verified: false });
    peer.refuseNext(other.email, 2);
    const job: MailJob = { messageId: `developer-verified:${other.id}`, kind: 'developer-verified', developerId: other.id };
    // Only this test shortens the waits: retries 1 s apart, and a worker polling every 0.5 s (the service's
    // workers poll retries every 10 s). The queue's own policy is asserted below.
    const worker = await t.ctx.boss.work<MailJob>(MAIL_QUEUE, { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 }, (jobs) =>
      mailQueue.handler(t.ctx, jobs),
    );
    try {
      const id = await t.ctx.boss.send(MAIL_QUEUE, job, { singletonKey: job.messageId, retryDelay: 1, retryBackoff: false });
      expect(await t.ctx.boss.send(MAIL_QUEUE, job, { singletonKey: job.messageId })).toBeNull();
      const done = await eventually(
        async () => (await t.sql(`select state, retry_count from pgboss.job where id = ? and state = 'completed'`, [id]))[0],
      );
      expect(done.retry_count).toBe(2);
    } finally {
      await t.ctx.boss.offWork(MAIL_QUEUE, { id: worker });
    }
    expect(peer.refusals(other.email)).toBe(2);
    expect(mailsTo(other.email)).toHaveLength(1);
    expect(await t.sql('select transport from emails where message_id = ?', [job.messageId])).toEqual([{ transport: 'smtp' }]);
  });

  test('the queue retries with backoff from about 5 s for at least 30 minutes, then dead-letters', async () => {
    const queue = await t.ctx.boss.getQueue(MAIL_QUEUE);
    expect(queue).toMatchObject({ retryBackoff: true, deadLetter: `${MAIL_QUEUE}.dead` });
    const { retryLimit = 0, retryDelay = 0, retryDelayMax = Infinity } = queue!;
    // pg-boss waits at least min(retryDelayMax, retryDelay · 2^(n−1)) before retry n.
    const shortestWaits = Array.from({ length: retryLimit }, (_, n) => Math.min(retryDelayMax, retryDelay * 2 ** n));
    expect(shortestWaits[0]).toBeGreaterThanOrEqual(4);
    expect(shortestWaits[0]).toBeLessThanOrEqual(10);
    expect(shortestWaits.reduce((sum, wait) => sum + wait, 0)).toBeGreaterThanOrEqual(30 * 60);
  });
});
