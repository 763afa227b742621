import type { EmailContent } from './layout.ts';

/** One function per notification; each returns plain text, which the layout escapes. */

export interface DeveloperVerifiedData {
  developerName: string;
}

export interface AppDecisionData {
  developerName: string;
  appName: string;
  appId: string;
}

export interface RejectionData extends AppDecisionData {
  reason: string;
}

export const developerVerified = ({ developerName }: DeveloperVerifiedData): EmailContent => ({
  subject: 'Your developer account is verified',
  recipientName: developerName,
  paragraphs: [
    'An administrator has verified your developer account on the App Marketplace.',
    'You can now create API keys and submit your apps for review.',
  ],
});

export interface EmailChangedData {
  developerName: string;
  newEmail: string;
}

export const emailChanged = ({ developerName, newEmail }: EmailChangedData): EmailContent => ({
  subject: 'The e-mail address of your developer account changed',
  recipientName: developerName,
  paragraphs: [
    `The App Marketplace will now write to ${newEmail} instead of this address.`,
    'If you did not make this change, sign in to your platform account, secure it, and contact support: someone with your platform sign-in changed it.',
  ],
});

export const appApproved = ({ developerName, appName, appId }: AppDecisionData): EmailContent => ({
  subject: `"${appName}" is approved and live`,
  recipientName: developerName,
  paragraphs: [
    `Your app "${appName}" passed review and is now listed on the marketplace.`,
    `Later changes to the listing go through a revision: POST /api/dev/apps/${appId}/revisions.`,
  ],
});

export const appRejected = ({ developerName, appName, appId, reason }: RejectionData): EmailContent => ({
  subject: `"${appName}" was not approved`,
  recipientName: developerName,
  paragraphs: [`Your app "${appName}" did not pass review. The reviewer's reasons:`],
  reason,
  guidance: [`Address them, update the listing with PUT /api/dev/apps/${appId}, then resubmit it with POST /api/dev/apps/${appId}/submit.`],
});

export const revisionApproved = ({ developerName, appName }: AppDecisionData): EmailContent => ({
  subject: `Your changes to "${appName}" are live`,
  recipientName: developerName,
  paragraphs: [`The revision you proposed for "${appName}" was approved and the listing now shows it.`],
});

export const revisionRejected = ({ developerName, appName, appId, reason }: RejectionData): EmailContent => ({
  subject: `Your changes to "${appName}" were not approved`,
  recipientName: developerName,
  paragraphs: [`The revision you proposed for "${appName}" did not pass review; the live listing is unchanged. The reviewer's reasons:`],
  reason,
  guidance: [`Address them and open a new revision with POST /api/dev/apps/${appId}/revisions.`],
});

export interface ListingEditedData {
  developerName: string;
  appName: string;
  changes: { label: string; before: string | null; after: string | null }[];
  /** Support's note to the developer, if any. */
  note: string | null;
}

/** Long values (a long description) are cut in the mail; the listing itself shows them whole. */
const shown = (value: string | null) =>
  value === null || value === '' ? '(empty)' : value.length > 300 ? `"${value.slice(0, 300)}…"` : `"${value}"`;

export const listingEdited = ({ developerName, appName, changes, note }: ListingEditedData): EmailContent => ({
  subject: `Support edited the listing of "${appName}"`,
  recipientName: developerName,
  paragraphs: [
    `Our support team made ${changes.length === 1 ? 'a change' : `${changes.length} changes`} to the live listing of "${appName}":`,
    ...changes.map((change) => `• ${change.label}: ${shown(change.before)} → ${shown(change.after)}`),
  ],
  ...(note ? { reason: note } : {}),
  guidance: ['The listing shows the changes already. If something is wrong, reply to support or propose a revision with the corrected values.'],
});

export interface ApiKeyExpiringData {
  developerName: string;
  keyName: string;
  maskedKey: string;
  expiresAt: Date;
}

export const apiKeyExpiring = ({ developerName, keyName, maskedKey, expiresAt }: ApiKeyExpiringData): EmailContent => {
  const day = expiresAt.toISOString().slice(0, 10);
  return {
    subject: `Your API key "${keyName}" expires on ${day}`,
    recipientName: developerName,
    paragraphs: [
      `Your API key "${keyName}" (${maskedKey}) expires on ${day} at ${expiresAt.toISOString().slice(11, 16)} UTC; requests made with it will then be refused.`,
      'Create a replacement with POST /api/dev/api-keys, switch your integration over to it, then revoke the old key.',
    ],
  };
};

export interface WebhookDisabledData {
  developerName: string;
  url: string;
  endpointId: string;
  failingSince: Date | null;
}

export const webhookDisabled = ({ developerName, url, endpointId, failingSince }: WebhookDisabledData): EmailContent => ({
  subject: 'A webhook endpoint was disabled after 3 days of failed deliveries',
  recipientName: developerName,
  paragraphs: [
    `Every delivery to your webhook endpoint ${url} has failed${
      failingSince ? ` since ${failingSince.toISOString().slice(0, 16).replace('T', ' ')} UTC` : ' for 3 days'
    }, so it no longer receives events.`,
    `See why in GET /api/dev/webhooks/${endpointId}/deliveries. Once the receiver works again, re-enable it with PUT /api/dev/webhooks/${endpointId} {"enabled": true} and redeliver what it missed.`,
  ],
});

export interface OverdueItem {
  /** A developer's name and e-mail, or an app's name and slug. */
  label: string;
  since: Date;
}

export interface AdminDigestData {
  developers: OverdueItem[];
  apps: OverdueItem[];
}

const overdueLine = (item: OverdueItem) => `• ${item.label}, waiting since ${item.since.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export const adminDigest = ({ developers, apps }: AdminDigestData): EmailContent => ({
  subject: `Marketplace review digest: ${developers.length + apps.length} overdue`,
  recipientName: 'reviewer',
  paragraphs: [
    ...(developers.length ? [`Developers waiting more than 24 hours for verification (${developers.length}):`, ...developers.map(overdueLine)] : []),
    ...(apps.length ? [`Apps waiting more than 48 hours for review (${apps.length}):`, ...apps.map(overdueLine)] : []),
  ],
  guidance: ['Verify developers with "bun run cli developers:verify <e-mail>" and decide apps with "apps:approve" or "apps:reject".'],
  footer: 'You receive this digest because you are an administrator of the App Marketplace.',
});

export interface TeamInvitationData {
  teamName: string;
  role: string;
  inviterName: string | null;
  expiresAt: Date;
}

/** No link and no secret: the invitee answers with their own credentials, which is what proves who they are. */
export const teamInvitation = ({ teamName, role, inviterName, expiresAt }: TeamInvitationData): EmailContent => ({
  subject: `You are invited to join the team "${teamName}"`,
  recipientName: 'developer',
  paragraphs: [
    `${inviterName ?? 'An owner'} invited this address to publish apps on the App Marketplace as ${role} of the team "${teamName}".`,
    `The invitation is valid until ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC. With a developer account whose profile carries this address, see it with GET /api/dev/invitations and answer with POST /api/dev/invitations/{id}/accept or /decline.`,
  ],
  footer: 'You receive this message because a team owner entered this address; if you do not expect it, ignore it.',
});
