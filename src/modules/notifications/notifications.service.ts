import type { EntityManager } from '@mikro-orm/postgresql';
import { queueHandle, type JobQueue } from '../../lib/job-queue.ts';
import { renderEmail, type EmailContent, type RenderedEmail } from '../../../views/emails/layout.ts';
import * as templates from '../../../views/emails/notifications.ts';
import { maskKey } from '../api-keys/key-format.ts';
import { LISTING_LABELS, type ListingField } from '../apps/listing-fields.ts';
import { Admin } from '../admin-accounts/admin.entity.ts';
import { ApiKey } from '../api-keys/api-key.entity.ts';
import { App } from '../apps/app.entity.ts';
import { AppRevision } from '../apps/app-revision.entity.ts';
import { AppTransition } from '../apps/app-transition.entity.ts';
import { AuditEntry } from '../audit/audit-entry.entity.ts';
import { Developer } from '../developers/developer.entity.ts';
import { TeamInvitation, TeamMember } from '../teams/team.entity.ts';
import { WebhookEndpoint } from '../webhooks/webhook-endpoint.entity.ts';

/**
 * Notification e-mails. The enqueue helpers run inside the transaction of the state change, so a
 * rolled-back change mails nothing; the job carries ids, and `composeNotification` reads what
 * the message says when it is sent. A message id names one event, so it is sent at most once.
 */
export const mailJobs = queueHandle<MailJob>('mail.send');
export const MAIL_QUEUE = mailJobs.name;

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

const enqueue = (jobs: JobQueue, tx: EntityManager, job: MailJob) => jobs.send(tx, mailJobs, job, { singletonKey: job.messageId });

/**
 * Mail about an app goes to whoever answers for it: its developer for a personal app; each owner
 * and maintainer of its team, once each (one message id per recipient), for a team app.
 */
async function enqueueAboutApp(jobs: JobQueue, tx: EntityManager, appId: string, job: AppMailJob): Promise<void> {
  const app = await tx.findOne(App, { id: appId });
  const recipients = app?.teamId
    ? await tx.find(TeamMember, { team: app.teamId, role: { $in: ['owner', 'maintainer'] } }, { orderBy: { developer: 'asc' } })
    : [];
  if (recipients.length === 0) return enqueue(jobs, tx, job);
  for (const { developer } of recipients) {
    await enqueue(jobs, tx, { ...job, messageId: `${job.messageId}:to:${developer.id}`, recipientId: developer.id });
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
  const revision = await tx.findOne(AppRevision, { id: revisionId });
  if (!revision) return;
  await enqueueAboutApp(jobs, tx, revision.appId, { messageId: `revision-${decision}:${revisionId}`, kind: `revision-${decision}`, revisionId });
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
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
  const [developers, apps] = await Promise.all([
    em.find(
      Developer,
      { status: 'PENDING_VERIFICATION', createdAt: { $lt: hoursAgo(VERIFICATION_TARGET_HOURS) } },
      { orderBy: { createdAt: 'asc' }, limit: 50 },
    ),
    em.find(App, { status: 'PENDING', submittedAt: { $lt: hoursAgo(REVIEW_TARGET_HOURS) } }, { orderBy: { submittedAt: 'asc' }, limit: 50 }),
  ]);
  return {
    developers: developers.map((d) => ({ label: `${d.name} <${d.email}>`, since: d.createdAt })),
    apps: apps.map((a) => ({ label: `${a.name} (${a.slug})`, since: a.submittedAt! })),
  };
}

export interface ComposedMail extends RenderedEmail {
  to: string;
  developerId: string | null;
  appId: string | null;
}

interface Recipient {
  developerId: string;
  developerName: string;
  email: string;
}

interface AppRecipient extends Recipient {
  appId: string;
  appName: string;
}

const recipientOf = (developer: Developer): Recipient => ({ developerId: developer.id, developerName: developer.name, email: developer.email });

/** The app's developer, or the team member the message was addressed to (null once they left the team). */
async function appRecipient(em: EntityManager, appId: string, recipientId?: string): Promise<AppRecipient | undefined> {
  const app = await em.findOne(App, { id: appId }, { populate: ['developer'] });
  if (!app) return undefined;
  const member = recipientId
    ? app.teamId && (await em.findOne(TeamMember, { team: app.teamId, developer: recipientId }, { populate: ['developer'] }))
    : undefined;
  if (recipientId && !member) return undefined;
  return { ...recipientOf(member ? member.developer : app.developer), appId: app.id, appName: app.name };
}

/**
 * The decision's own reason, from its transition row: the app's `rejection_reason` is cleared
 * by the next submission, which may come before a retried message is sent.
 */
async function appRejectionReason(em: EntityManager, appId: string, version: number, decidedAt: string): Promise<string> {
  const transition = await em.findOne(
    AppTransition,
    { appId, action: 'reject', version, createdAt: { $gte: new Date(decidedAt) } },
    { orderBy: { createdAt: 'asc' } },
  );
  return transition?.reason ?? '';
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
  developerId: recipient.developerId,
  appId,
  content,
});

async function compose(em: EntityManager, job: MailJob): Promise<Composed | null> {
  switch (job.kind) {
    case 'developer-verified': {
      const developer = await em.findOne(Developer, { id: job.developerId });
      if (!developer) return null;
      return toDeveloper(recipientOf(developer), null, templates.developerVerified({ developerName: developer.name }));
    }
    case 'developer-email-changed': {
      const change = await em.findOne(AuditEntry, { id: job.auditEntryId });
      const developer = change && (await em.findOne(Developer, { id: change.subjectId }));
      if (!change || !developer) return null;
      const [before, after] = [change.before as { email: string }, change.after as { email: string }];
      const recipient = { ...recipientOf(developer), email: before.email };
      return toDeveloper(recipient, null, templates.emailChanged({ developerName: developer.name, newEmail: after.email }));
    }
    case 'app-approved':
    case 'app-rejected': {
      const recipient = await appRecipient(em, job.appId, job.recipientId);
      if (!recipient) return null;
      const data = { developerName: recipient.developerName, appName: recipient.appName, appId: recipient.appId };
      const content =
        job.kind === 'app-approved'
          ? templates.appApproved(data)
          : templates.appRejected({ ...data, reason: await appRejectionReason(em, job.appId, job.version, job.decidedAt) });
      return toDeveloper(recipient, recipient.appId, content);
    }
    case 'api-key-expiring': {
      // A key revoked or already expired by the time the job runs needs no reminder.
      const key = await em.findOne(ApiKey, { id: job.apiKeyId, revokedAt: null, expiresAt: { $gt: new Date() } }, { populate: ['developer'] });
      if (!key) return null;
      const content = templates.apiKeyExpiring({
        developerName: key.developer.name,
        keyName: key.name,
        maskedKey: maskKey(key.last4),
        expiresAt: key.expiresAt,
      });
      return toDeveloper(recipientOf(key.developer), null, content);
    }
    case 'admin-digest': {
      const admin = await em.findOne(Admin, { id: job.adminId });
      if (!admin) return null;
      const overdue = await overdueItems(em);
      // Nothing overdue, nothing to say.
      if (overdue.developers.length + overdue.apps.length === 0) return null;
      return { to: admin.email, developerId: null, appId: null, content: templates.adminDigest(overdue) };
    }
    case 'listing-edited': {
      const recipient = await appRecipient(em, job.appId, job.recipientId);
      const entry = await em.findOne(AuditEntry, { id: job.auditId, action: 'app.support-edit' });
      if (!recipient || !entry) return null;
      const content = templates.listingEdited({
        developerName: recipient.developerName,
        appName: recipient.appName,
        changes: Object.keys(entry.after ?? {})
          .filter((field) => field in LISTING_LABELS)
          .map((field) => ({
            label: LISTING_LABELS[field as ListingField],
            before: (entry.before?.[field] as string | null | undefined) ?? null,
            after: (entry.after?.[field] as string | null | undefined) ?? null,
          })),
        note: entry.reason ?? null,
      });
      return toDeveloper(recipient, recipient.appId, content);
    }
    case 'webhook-disabled': {
      const endpoint = await em.findOne(WebhookEndpoint, { id: job.endpointId }, { populate: ['developer'] });
      if (!endpoint) return null;
      const content = templates.webhookDisabled({
        developerName: endpoint.developer.name,
        url: endpoint.url,
        endpointId: job.endpointId,
        failingSince: endpoint.failingSince ?? null,
      });
      return toDeveloper(recipientOf(endpoint.developer), null, content);
    }
    case 'team-invitation': {
      // An invitation withdrawn or answered before the message left needs none.
      const invitation = await em.findOne(TeamInvitation, { id: job.invitationId, status: 'PENDING' }, { populate: ['team'] });
      if (!invitation) return null;
      const inviter = invitation.invitedBy ? await em.findOne(Developer, { id: invitation.invitedBy }) : null;
      const content = templates.teamInvitation({
        teamName: invitation.team.name,
        role: invitation.role,
        inviterName: inviter?.name ?? null,
        expiresAt: invitation.expiresAt,
      });
      return { to: invitation.email, developerId: null, appId: null, content };
    }
    case 'revision-approved':
    case 'revision-rejected': {
      const revision = await em.findOne(AppRevision, { id: job.revisionId });
      const recipient = revision && (await appRecipient(em, revision.appId, job.recipientId));
      if (!revision || !recipient) return null;
      const data = { developerName: recipient.developerName, appName: recipient.appName, appId: recipient.appId };
      const content =
        job.kind === 'revision-approved'
          ? templates.revisionApproved(data)
          : templates.revisionRejected({ ...data, reason: revision.rejectionReason ?? '' });
      return toDeveloper(recipient, recipient.appId, content);
    }
  }
}

/** The message as it would be sent now, or null when its developer or app no longer exists. */
export async function composeNotification(em: EntityManager, job: MailJob): Promise<ComposedMail | null> {
  const composed = await compose(em, job);
  if (!composed) return null;
  const rendered = renderEmail(composed.content);
  return { ...rendered, to: composed.to, developerId: composed.developerId, appId: composed.appId };
}
