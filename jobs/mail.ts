import type { AppContext } from '../src/app-context.ts';
import { composeNotification, MAIL_QUEUE, type MailJob } from '../src/modules/notifications/notifications.service.ts';
import { defineQueue } from './queues.ts';

/**
 * Sends one notification e-mail per job. The `emails` row, written once SMTP accepted the
 * message (or it went to the outbox), is the record that it was sent: a job finding it does
 * nothing, and an advisory lock on the message id keeps two deliveries of one job from racing.
 *
 * Retries: pg-boss waits min(retryDelayMax, retryDelay · 2^(n−1) · (1 + random)) before retry n,
 * so 5–10 s, 10–20 s, … then 600 s from the 7th retry on. At the least (random = 0), 12 retries
 * take 5+10+20+40+80+160+320 + 5·600 = 3635 s ≈ 61 minutes before the dead-letter queue.
 */
export const MAIL_RETRY_POLICY = { retryLimit: 12, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 };

export async function sendNotification(ctx: AppContext, job: MailJob): Promise<void> {
  await ctx.orm.em.fork().transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtext('mail'), hashtext(?))`, [job.messageId]);
    const [sent] = await tx.execute('select 1 from emails where message_id = ?', [job.messageId]);
    if (sent) return;
    const mail = await composeNotification(tx, job);
    if (!mail) return;
    await ctx.mailer.deliver({ messageId: job.messageId, to: mail.to, subject: mail.subject, html: mail.html, text: mail.text });
    await tx.execute(
      `insert into emails (message_id, kind, to_address, subject, html, text_body, transport, app_id, developer_id, sent_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, now())
       on conflict (message_id) do nothing`,
      [job.messageId, job.kind, mail.to, mail.subject, mail.html, mail.text, ctx.mailer.transport, mail.appId, mail.developerId],
    );
  });
}

export const mailQueue = defineQueue<MailJob>({
  name: MAIL_QUEUE,
  // One queued or active job per message id (the singleton key); the SMTP timeouts end an attempt well inside the expiry.
  options: { ...MAIL_RETRY_POLICY, policy: 'exclusive', expireInSeconds: 120, deadLetter: `${MAIL_QUEUE}.dead` },
  // One job per fetch, so a message that fails is retried alone rather than with its batch.
  work: { batchSize: 1, localConcurrency: 4 },
  async handler(ctx, jobs) {
    for (const job of jobs) await sendNotification(ctx, job.data);
  },
});
