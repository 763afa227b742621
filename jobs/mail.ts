import type { AppContext } from '../src/app-context.ts';
import { deliverNotification, type SendAttempt } from '../src/modules/notifications/mail-delivery.ts';
import { SEND_TIMEOUT_SECONDS } from '../src/modules/notifications/mailer.ts';
import { mailJobs, type MailJob } from '../src/modules/notifications/notifications.service.ts';
import { defineQueue } from './queues.ts';

/**
 * Sends one notification e-mail per job, outside any transaction, under a per-message claim
 * (`src/modules/notifications/mail-delivery.ts`): a retry, a redelivery or a second worker never
 * sends one message id twice.
 *
 * Retries: pg-boss waits min(retryDelayMax, retryDelay · 2^(n−1) · (1 + random)) before retry n,
 * so 5–10 s, 10–20 s, … then 600 s from the 7th retry on. At the least (random = 0), 12 retries
 * take 5+10+20+40+80+160+320 + 5·600 = 3635 s ≈ 61 minutes before the dead-letter queue.
 */
export const MAIL_RETRY_POLICY = { retryLimit: 12, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 };

/** Well past the longest send, so an attempt that expired has certainly stopped talking to SMTP. */
const MAIL_EXPIRY_SECONDS = 4 * SEND_TIMEOUT_SECONDS;

/** A direct call (tests, tools) is its own one-attempt job. */
const directAttempt = (): SendAttempt => ({ jobId: crypto.randomUUID(), attempt: 0, leaseSeconds: MAIL_EXPIRY_SECONDS });

export const sendNotification = (ctx: AppContext, job: MailJob, attempt: SendAttempt = directAttempt()) =>
  deliverNotification({ em: ctx.orm.em.fork(), mailer: ctx.mailer, logger: ctx.logger }, job, attempt);

export const mailQueue = defineQueue({
  queue: mailJobs,
  // One queued or active job per message id (the singleton key).
  options: { ...MAIL_RETRY_POLICY, policy: 'exclusive', expireInSeconds: MAIL_EXPIRY_SECONDS },
  // One job per fetch, so a message that fails is retried alone rather than with its batch.
  work: { batchSize: 1, localConcurrency: 4 },
  async handler(ctx, jobs) {
    for (const job of jobs) {
      await sendNotification(ctx, job.data, { jobId: job.id, attempt: job.retryCount, leaseSeconds: job.expireInSeconds });
    }
  },
});
