import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';
import type { Logger } from '../../lib/logger.ts';
import { recordEmailFailure } from '../../lib/metrics.ts';
import type { Mailer } from './mailer.ts';
import { Email } from './email.entity.ts';
import { composeNotification, type ComposedMail, type MailJob } from './notifications.service.ts';

/**
 * Sends one notification at most once, with no database transaction open while SMTP talks.
 *
 * 1. The `emails` row is the record that a message went out: found, there is nothing to do.
 * 2. A claim row (`email_claims`) names the job attempt sending it. It is taken in one statement
 *    and refused while another attempt holds it, unless that attempt is this one (running again
 *    after a database outage) or an earlier one of the same pg-boss job (pg-boss starts attempt n+1
 *    only after attempt n failed or expired, and a send is cut off well inside the expiry), or its
 *    lease ran out (a different job for the same message).
 * 3. SMTP, outside any transaction.
 * 4. One transaction writes the `emails` row and drops the claim; a failed send drops the claim.
 *
 * The window SMTP cannot close: the server accepted the message (250 after DATA) and the process
 * died, or lost the database for longer than RECORD_RETRY_MS, before step 4 committed. The next
 * attempt finds no record and sends again. The `X-Marketplace-Message-Id` header lets a receiver
 * drop that duplicate.
 */
export interface DeliveryDeps {
  em: EntityManager;
  mailer: Mailer;
  logger: Logger;
}

/** The pg-boss job attempt doing the sending; its expiry is the claim's lease. */
export interface SendAttempt {
  jobId: string;
  attempt: number;
  leaseSeconds: number;
}

/** Thrown when another attempt holds the claim: the job fails and retries after its backoff. */
export class MessageClaimedError extends Error {
  override name = 'MessageClaimedError';
}

/** How long a recorded send keeps retrying its record while PostgreSQL is unreachable (a restart, a failover). */
const RECORD_RETRY_MS = 30_000;

const isSent = async (em: EntityManager, messageId: string) => (await em.count(Email, { messageId })) > 0;

// Atomic claim (raw SQL): taken, refused or taken over in one statement.
async function claim(em: EntityManager, messageId: string, attempt: SendAttempt): Promise<boolean> {
  const rows = await executeNamed(
    em,
    `insert into email_claims as c (message_id, job_id, attempt, claimed_until)
     select :messageId, :jobId, :attempt, now() + make_interval(secs => :leaseSeconds)
     where not exists (select 1 from emails where message_id = :messageId)
     on conflict (message_id) do update set job_id = excluded.job_id, attempt = excluded.attempt, claimed_until = excluded.claimed_until
     where c.claimed_until < now() or (c.job_id = excluded.job_id and c.attempt <= excluded.attempt)
     returning c.message_id`,
    { messageId, jobId: attempt.jobId, attempt: attempt.attempt, leaseSeconds: attempt.leaseSeconds },
  );
  return rows.length > 0;
}

// Part of the claim's protocol: only this attempt's claim is dropped.
const release = (em: EntityManager, messageId: string, attempt: SendAttempt) =>
  executeNamed(em, 'delete from email_claims where message_id = :messageId and job_id = :jobId and attempt = :attempt', {
    messageId,
    jobId: attempt.jobId,
    attempt: attempt.attempt,
  });

async function record(
  em: EntityManager,
  job: MailJob,
  mail: ComposedMail,
  transport: Email['transport'],
  attempt: SendAttempt | null,
): Promise<void> {
  await em.transactional(async (tx) => {
    // A record already there (an earlier attempt's) is kept as it is.
    await tx.upsert(
      Email,
      {
        messageId: job.messageId,
        kind: job.kind,
        toAddress: mail.to,
        subject: mail.subject,
        html: mail.html,
        textBody: mail.text,
        transport,
        appId: mail.appId,
        developerId: mail.developerId,
        sentAt: new Date(),
      },
      { onConflictFields: ['messageId'], onConflictAction: 'ignore', disableIdentityMap: true },
    );
    if (attempt) await release(tx, job.messageId, attempt);
  });
}

/** Keeps trying to record a message SMTP accepted, so a database restart mid-send does not cause a second send. */
async function recordAccepted(deps: DeliveryDeps, job: MailJob, mail: ComposedMail, attempt: SendAttempt): Promise<void> {
  const deadline = Date.now() + RECORD_RETRY_MS;
  for (;;) {
    try {
      return await record(deps.em, job, mail, deps.mailer.transport, attempt);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      deps.logger.warn('could not record a sent e-mail yet; retrying', { messageId: job.messageId, error: (error as Error).message });
      await Bun.sleep(500);
    }
  }
}

export async function deliverNotification(deps: DeliveryDeps, job: MailJob, attempt: SendAttempt): Promise<void> {
  const { em, mailer } = deps;
  if (await isSent(em, job.messageId)) return;
  const mail = await composeNotification(em, job);
  if (!mail) return;
  // Without SMTP the record is the message (the dev outbox): writing it is the whole send.
  if (mailer.transport === 'outbox') return record(em, job, mail, mailer.transport, null);

  if (!(await claim(em, job.messageId, attempt))) {
    if (await isSent(em, job.messageId)) return;
    throw new MessageClaimedError(`message ${job.messageId} is being sent by another attempt`);
  }
  // A sender that recorded and let go between this attempt's first look and its claim.
  if (await isSent(em, job.messageId)) return void (await release(em, job.messageId, attempt));
  try {
    await mailer.deliver({ messageId: job.messageId, to: mail.to, subject: mail.subject, html: mail.html, text: mail.text });
  } catch (error) {
    recordEmailFailure();
    await release(em, job.messageId, attempt).catch(() => {});
    throw error;
  }
  await recordAccepted(deps, job, mail, attempt);
}
