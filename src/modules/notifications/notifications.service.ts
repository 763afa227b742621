import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../../lib/job-queue.ts';
import { renderEmail, type EmailContent, type RenderedEmail } from '../../../views/emails/layout.ts';
import * as templates from '../../../views/emails/notifications.ts';
import { maskKey } from '../api-keys/key-format.ts';
import { LISTING_LABELS, type ListingField } from '../apps/listing-fields.ts';

/**
 * Notification e-mails. The enqueue helpers run inside the transaction of the state change, so a
 * rolled-back change mails nothing; the job carries ids, and `composeNotification` reads what
 * the message says when it is sent. A message id names one event, so it is sent at most once.
 */
export const MAIL_QUEUE = 'mail.send';

export type Decision = 'approved' | 'rejected';

export type MailJob =
  | { messageId: string; kind: 'developer-verified'; developerId: string }
  | { messageId: string; kind: 'developer-email-changed'; auditEntryId: string }
  | { messageId: string; kind: `app-${Decision}`; appId: string; version: number; decidedAt: string; recipientId?: string }
  | { messageId: string; kind: `revision-${Decision}`; revisionId: string; recipientId?: string }
  | { messageId: string; kind: 'api-key-expiring'; apiKeyId: string }
  | { messageId: string; kind: 'listing-edited'; appId: string; auditId: string; recipientId?: string }
  | { messageId: string; kind: 'team-invitation'; invitationId: string }
  | { messageId: string; kind: 'admin-digest'; adminId: string; day: string }
  | { messageId: string; kind: 'webhook-disabled'; endpointId: string };

/** The mails about an app, which a team app sends to each of its owners and maintainers. */
type AppMailJob = Extract<MailJob, { kind: `app-${Decision}` | `revision-${Decision}` | 'listing-edited' }>;

const enqueue = (jobs: JobQueue, tx: EntityManager, job: MailJob) => jobs.send(tx, MAIL_QUEUE, job, { singletonKey: job.messageId });

/**
 * Mail about an app goes to whoever answers for it: its developer for a personal app; each owner
 * and maintainer of its team, once each (one message id per recipient), for a team app.
 */
async function enqueueAboutApp(jobs: JobQueue, tx: EntityManager, appId: string, job: AppMailJob): Promise<void> {
  const recipients = await tx.execute<{ developer_id: string }[]>(
    `select m.developer_id from apps a join team_members m on m.team_id = a.team_id
     where a.id = ? and m.role in ('owner', 'maintainer') order by m.developer_id`,
    [appId],
  );
  if (recipients.length === 0) return enqueue(jobs, tx, job);
  for (const { developer_id } of recipients) {
    await enqueue(jobs, tx, { ...job, messageId: `${job.messageId}:to:${developer_id}`, recipientId: developer_id });
  }
}

/** The invitee's address gets the invitation (once per invitation). */
export const notifyTeamInvitation = (jobs: JobQueue, tx: EntityManager, invitationId: string) =>
  enqueue(jobs, tx, { messageId: `team-invitation:${invitationId}`, kind: 'team-invitation', invitationId });

export const notifyDeveloperVerified = (jobs: JobQueue, tx: EntityManager, developerId: string) =>
  enqueue(jobs, tx, { messageId: `developer-verified:${developerId}`, kind: 'developer-verified', developerId });

/** To the address the account had: its mail now goes elsewhere (the audit entry holds both addresses). */
export const notifyEmailChanged = (jobs: JobQueue, tx: EntityManager, auditEntryId: string) =>
  enqueue(jobs, tx, { messageId: `developer-email-changed:${auditEntryId}`, kind: 'developer-email-changed', auditEntryId });

/**
 * `decidedAt` (the app's `reviewedAt`) tells two decisions on one version apart: an unchanged
 * listing can be rejected, resubmitted and rejected again, and each rejection is its own message.
 */
export const notifyAppDecision = (jobs: JobQueue, tx: EntityManager, appId: string, version: number, decision: Decision, decidedAt: Date) =>
  enqueueAboutApp(jobs, tx, appId, {
    messageId: `app-${decision}:${appId}:v${version}:${decidedAt.getTime()}`,
    kind: `app-${decision}`,
    appId,
    version,
    decidedAt: decidedAt.toISOString(),
  });

export async function notifyRevisionDecision(jobs: JobQueue, tx: EntityManager, revisionId: string, decision: Decision): Promise<void> {
  const [revision] = await tx.execute<{ app_id: string }[]>('select app_id from app_revisions where id = ?', [revisionId]);
  if (!revision) return;
  await enqueueAboutApp(jobs, tx, revision.app_id, { messageId: `revision-${decision}:${revisionId}`, kind: `revision-${decision}`, revisionId });
}

/** A support edit of a live listing: the message lists the audited changes (one message per edit). */
export const notifyListingEdited = (jobs: JobQueue, tx: EntityManager, appId: string, auditId: string) =>
  enqueueAboutApp(jobs, tx, appId, { messageId: `listing-edited:${auditId}`, kind: 'listing-edited', appId, auditId });

/** One reminder per key, ever: the message id is the key's id under this prefix. */
export const API_KEY_EXPIRING_PREFIX = 'api-key-expiring:';

export const notifyApiKeyExpiring = (jobs: JobQueue, tx: EntityManager, apiKeyId: string) =>
  enqueue(jobs, tx, { messageId: `${API_KEY_EXPIRING_PREFIX}${apiKeyId}`, kind: 'api-key-expiring', apiKeyId });

/** Review targets (D032): developers verified within 24 hours, apps reviewed within 48. */
export const VERIFICATION_TARGET_HOURS = 24;
export const REVIEW_TARGET_HOURS = 48;

/** One digest per admin per UTC day. */
export const notifyAdminDigest = (jobs: JobQueue, tx: EntityManager, adminId: string, day: string) =>
  enqueue(jobs, tx, { messageId: `admin-digest:${adminId}:${day}`, kind: 'admin-digest', adminId, day });

/** One message per time an endpoint is disabled for failing (it can be re-enabled and fail again). */
export const notifyWebhookDisabled = (jobs: JobQueue, tx: EntityManager, endpointId: string, disabledAt: Date) =>
  enqueue(jobs, tx, { messageId: `webhook-disabled:${endpointId}:${disabledAt.getTime()}`, kind: 'webhook-disabled', endpointId });

async function overdueItems(em: EntityManager): Promise<templates.AdminDigestData> {
  const [developers, apps] = await Promise.all([
    em.execute<{ label: string; since: string }[]>(
      `select name || ' <' || email || '>' as label, created_at as since from developers
       where status = 'PENDING_VERIFICATION' and created_at < now() - make_interval(hours => ?)
       order by created_at limit 50`,
      [VERIFICATION_TARGET_HOURS],
    ),
    em.execute<{ label: string; since: string }[]>(
      `select name || ' (' || slug || ')' as label, submitted_at as since from apps
       where status = 'PENDING' and submitted_at < now() - make_interval(hours => ?)
       order by submitted_at limit 50`,
      [REVIEW_TARGET_HOURS],
    ),
  ]);
  const toItem = (row: { label: string; since: string }) => ({ label: row.label, since: new Date(row.since) });
  return { developers: developers.map(toItem), apps: apps.map(toItem) };
}

export interface ComposedMail extends RenderedEmail {
  to: string;
  developerId: string | null;
  appId: string | null;
}

interface Recipient {
  developer_id: string;
  developer_name: string;
  email: string;
}

interface AppRecipient extends Recipient {
  app_id: string;
  app_name: string;
}

/** The app's developer, or the team member the message was addressed to (null once they left the team). */
const appRecipient = async (em: EntityManager, appId: string, recipientId?: string) =>
  (
    await em.execute<AppRecipient[]>(
      recipientId
        ? `select a.id as app_id, a.name as app_name, d.id as developer_id, d.name as developer_name, d.email
           from apps a join team_members m on m.team_id = a.team_id join developers d on d.id = m.developer_id
           where a.id = ? and d.id = ?`
        : `select a.id as app_id, a.name as app_name, d.id as developer_id, d.name as developer_name, d.email
           from apps a join developers d on d.id = a.developer_id where a.id = ?`,
      recipientId ? [appId, recipientId] : [appId],
    )
  )[0];

/**
 * The decision's own reason, from its transition row: the app's `rejection_reason` is cleared
 * by the next submission, which may come before a retried message is sent.
 */
async function appRejectionReason(em: EntityManager, appId: string, version: number, decidedAt: string): Promise<string> {
  const [row] = await em.execute<{ reason: string | null }[]>(
    `select reason from app_transitions
     where app_id = ? and action = 'reject' and version = ? and created_at >= ?
     order by created_at limit 1`,
    [appId, version, decidedAt],
  );
  return row?.reason ?? '';
}

interface Composed {
  to: string;
  /** The developer the message is about (null for admin mail). */
  developerId: string | null;
  appId: string | null;
  content: EmailContent;
}

const toDeveloper = (recipient: Recipient, appId: string | null, content: EmailContent): Composed => ({
  to: recipient.email,
  developerId: recipient.developer_id,
  appId,
  content,
});

async function compose(em: EntityManager, job: MailJob): Promise<Composed | null> {
  switch (job.kind) {
    case 'developer-verified': {
      const [recipient] = await em.execute<Recipient[]>('select id as developer_id, name as developer_name, email from developers where id = ?', [
        job.developerId,
      ]);
      if (!recipient) return null;
      return toDeveloper(recipient, null, templates.developerVerified({ developerName: recipient.developer_name }));
    }
    case 'developer-email-changed': {
      const [change] = await em.execute<{ developer_id: string; developer_name: string; before: { email: string }; after: { email: string } }[]>(
        `select d.id as developer_id, d.name as developer_name, l.before, l.after
         from audit_log l join developers d on l.subject_id = d.id::text where l.id = ?`,
        [job.auditEntryId],
      );
      if (!change) return null;
      const recipient = { developer_id: change.developer_id, developer_name: change.developer_name, email: change.before.email };
      return toDeveloper(recipient, null, templates.emailChanged({ developerName: change.developer_name, newEmail: change.after.email }));
    }
    case 'app-approved':
    case 'app-rejected': {
      const recipient = await appRecipient(em, job.appId, job.recipientId);
      if (!recipient) return null;
      const data = { developerName: recipient.developer_name, appName: recipient.app_name, appId: recipient.app_id };
      const content =
        job.kind === 'app-approved'
          ? templates.appApproved(data)
          : templates.appRejected({ ...data, reason: await appRejectionReason(em, job.appId, job.version, job.decidedAt) });
      return toDeveloper(recipient, recipient.app_id, content);
    }
    case 'api-key-expiring': {
      // A key revoked or already expired by the time the job runs needs no reminder.
      const [key] = await em.execute<(Recipient & { name: string; last4: string; expires_at: string })[]>(
        `select k.name, k.last4, k.expires_at, d.id as developer_id, d.name as developer_name, d.email
         from api_keys k join developers d on d.id = k.developer_id
         where k.id = ? and k.revoked_at is null and k.expires_at > now()`,
        [job.apiKeyId],
      );
      if (!key) return null;
      const content = templates.apiKeyExpiring({
        developerName: key.developer_name,
        keyName: key.name,
        maskedKey: maskKey(key.last4),
        expiresAt: new Date(key.expires_at),
      });
      return toDeveloper(key, null, content);
    }
    case 'admin-digest': {
      const [admin] = await em.execute<{ email: string }[]>('select email from admins where id = ?', [job.adminId]);
      if (!admin) return null;
      const overdue = await overdueItems(em);
      // Nothing overdue, nothing to say.
      if (overdue.developers.length + overdue.apps.length === 0) return null;
      return { to: admin.email, developerId: null, appId: null, content: templates.adminDigest(overdue) };
    }
    case 'listing-edited': {
      const recipient = await appRecipient(em, job.appId, job.recipientId);
      const [entry] = await em.execute<{ before: Record<string, unknown> | null; after: Record<string, unknown> | null; reason: string | null }[]>(
        `select before, after, reason from audit_log where id = ? and action = 'app.support-edit'`,
        [job.auditId],
      );
      if (!recipient || !entry) return null;
      const content = templates.listingEdited({
        developerName: recipient.developer_name,
        appName: recipient.app_name,
        changes: Object.keys(entry.after ?? {})
          .filter((field) => field in LISTING_LABELS)
          .map((field) => ({
            label: LISTING_LABELS[field as ListingField],
            before: (entry.before?.[field] as string | null | undefined) ?? null,
            after: (entry.after?.[field] as string | null | undefined) ?? null,
          })),
        note: entry.reason,
      });
      return toDeveloper(recipient, recipient.app_id, content);
    }
    case 'webhook-disabled': {
      const [endpoint] = await em.execute<(Recipient & { url: string; failing_since: string | null })[]>(
        `select w.url, w.failing_since, d.id as developer_id, d.name as developer_name, d.email
         from webhook_endpoints w join developers d on d.id = w.developer_id where w.id = ?`,
        [job.endpointId],
      );
      if (!endpoint) return null;
      const content = templates.webhookDisabled({
        developerName: endpoint.developer_name,
        url: endpoint.url,
        endpointId: job.endpointId,
        failingSince: endpoint.failing_since ? new Date(endpoint.failing_since) : null,
      });
      return toDeveloper(endpoint, null, content);
    }
    case 'team-invitation': {
      // An invitation withdrawn or answered before the message left needs none.
      const [invitation] = await em.execute<{ email: string; role: string; expires_at: string; team_name: string; inviter_name: string | null }[]>(
        `select i.email, i.role, i.expires_at, t.name as team_name, d.name as inviter_name
         from team_invitations i join teams t on t.id = i.team_id left join developers d on d.id = i.invited_by
         where i.id = ? and i.status = 'PENDING'`,
        [job.invitationId],
      );
      if (!invitation) return null;
      const content = templates.teamInvitation({
        teamName: invitation.team_name,
        role: invitation.role,
        inviterName: invitation.inviter_name,
        expiresAt: new Date(invitation.expires_at),
      });
      return { to: invitation.email, developerId: null, appId: null, content };
    }
    case 'revision-approved':
    case 'revision-rejected': {
      const [revision] = await em.execute<{ app_id: string; rejection_reason: string | null }[]>(
        'select app_id, rejection_reason from app_revisions where id = ?',
        [job.revisionId],
      );
      const recipient = revision && (await appRecipient(em, revision.app_id, job.recipientId));
      if (!revision || !recipient) return null;
      const data = { developerName: recipient.developer_name, appName: recipient.app_name, appId: recipient.app_id };
      const content =
        job.kind === 'revision-approved'
          ? templates.revisionApproved(data)
          : templates.revisionRejected({ ...data, reason: revision.rejection_reason ?? '' });
      return toDeveloper(recipient, recipient.app_id, content);
    }
  }
}

/** The message as it would be sent now, or null when its developer or app no longer exists. */
export async function composeNotification(em: EntityManager, job: MailJob): Promise<ComposedMail | null> {
  const composed = await compose(em, job);
  if (!composed) return null;
  const rendered = await renderEmail(composed.content);
  return { ...rendered, to: composed.to, developerId: composed.developerId, appId: composed.appId };
}
