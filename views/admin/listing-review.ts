import { html, type SafeHtml } from '../html.ts';
import {
  actionButton,
  badge,
  dataTable,
  filterForm,
  hiddenFields,
  notice,
  pager,
  type FormContext,
  type Paging,
  type Message,
} from './components.ts';
import { formatTime } from './format.ts';
import {
  addedPermissionsWarning,
  assetChecksTable,
  assetProblems,
  diffTable,
  historyTable,
  listingPreview,
  lookalikeWarning,
  reviewerContext,
  type AppDossier,
} from './listing.ts';
import { waitingBadge, type Waiting } from './waiting.ts';
import { reviewTeamPanel, type ReviewTeam } from './teams.ts';

/**
 * What a reviewer must have looked at before approving: image problems, look-alike names and (for a
 * revision) new permissions. The review page shows them above the decision buttons, and an approval
 * while any stands needs the reviewer's explicit "I have checked the warnings" (recorded in the audit log).
 */
export interface ReviewWarning {
  kind: 'images' | 'lookalike' | 'permissions';
  /** What it is, in a few words. */
  label: string;
  /** One line, as the audit log keeps it. */
  summary: string;
}

export interface Claim {
  subject: string;
  adminId: string;
  adminEmail: string;
  expiresAt: Date;
}

/*
 * The review queue and the review page (one PENDING app, or one app's pending revision). The
 * evidence (warnings) stands above the decision; keyboard shortcuts are `data-shortcut` attributes
 * that the console's script (`shortcuts.js`) acts on, never inside a text field.
 */

export interface QueueItem {
  kind: 'app' | 'revision';
  appId: string;
  name: string;
  slug: string;
  developer: { id: string; name: string };
  waiting: Waiting;
  position: number;
  flags: QueueFlag[];
  /** The stored copy of the logo; null: none is shown. */
  logoUrl: string | null;
  claim: (Claim & { mine: boolean }) | null;
}

/** What a reviewer triages by; each is also a filter of the queue. */
export type QueueFlag = 'images' | 'lookalike' | 'permissions' | 'resubmitted';

export const FLAG_LABELS: Record<QueueFlag, string> = {
  images: 'image problems',
  lookalike: 'look-alike',
  permissions: 'new permissions',
  resubmitted: 'resubmitted',
};

export const reviewPath = (kind: 'app' | 'revision', appId: string) => `/admin/review/${kind === 'app' ? 'apps' : 'revisions'}/${appId}`;

const withQueue = (path: string, queue: string) => (queue ? `${path}?${queue}` : path);

const claimText = (claim: QueueItem['claim']) =>
  claim
    ? html`<span class="claim-holder">${claim.mine ? 'You' : claim.adminEmail}</span> <span class="muted">until ${formatTime(claim.expiresAt).slice(11)}</span>`
    : html`<span class="muted">—</span>`;

const shortcutKey = (key: string) => html`<kbd>${key}</kbd>`;

function shortcutsLegend(items: [string, string][]): SafeHtml {
  return html`<p class="shortcuts muted" aria-label="Keyboard shortcuts">Keys: ${items.map(([key, what]) => html`<span>${shortcutKey(key)} ${what}</span>`)}</p>`;
}

export function queuePage(data: {
  items: QueueItem[];
  queue: string;
  query: { q?: string; kind?: string; flag?: string };
  paging: Paging;
}): SafeHtml {
  const { items } = data;
  return html`<p class="muted">Oldest first. Open an item to look at it; "Start review" on its page tells other reviewers that you are on it.</p>
  ${filterForm({
    action: '/admin/review',
    search: data.query.q,
    placeholder: 'App, slug or developer',
    selects: [
      {
        name: 'kind',
        label: 'Kind',
        options: [
          { value: 'app', label: 'New apps and resubmissions' },
          { value: 'revision', label: 'Revisions' },
        ],
        selected: data.query.kind,
      },
      { name: 'flag', label: 'Flag', options: Object.entries(FLAG_LABELS).map(([value, label]) => ({ value, label })), selected: data.query.flag },
    ],
  })}
  ${shortcutsLegend([
    ['j', 'next row'],
    ['k', 'previous row'],
  ])}
  <div id="results" data-shortcut-list="">${dataTable({
    id: 'review-queue',
    columns: [
      { label: '#', kind: 'num' },
      { label: 'Item' },
      { label: 'Kind' },
      { label: 'Flags' },
      { label: 'Developer' },
      { label: 'Waiting' },
      { label: 'Being reviewed by' },
    ],
    rows: items.map(
      (item) => html`<tr id="queue-${item.kind}-${item.appId}">
        <td class="num">${item.position}</td>
        <td><div class="item">${item.logoUrl ? html`<img class="thumb" src="${item.logoUrl}" alt="" width="32" height="32" loading="lazy">` : html`<span class="thumb empty" aria-hidden="true"></span>`}
          <span><a class="item-link" href="${withQueue(reviewPath(item.kind, item.appId), data.queue)}">${item.name}</a> <span class="muted">${item.slug}</span></span></div></td>
        <td>${item.kind === 'app' ? (item.flags.includes('resubmitted') ? 'Resubmission' : 'New app') : 'Revision'}</td>
        <td class="flags">${item.flags.map((flag) => html`<span class="flag flag-${flag}">${FLAG_LABELS[flag]}</span>`)}</td>
        <td><a href="/admin/developers/${item.developer.id}">${item.developer.name}</a></td>
        <td>${waitingBadge(item.waiting)}</td>
        <td>${claimText(item.claim)}</td>
      </tr>`,
    ),
    empty: 'Nothing waits for review.',
  })}
  ${pager('/admin/review', data.query, data.paging)}</div>`;
}

/**
 * Who is on this review: nobody ("Start review"), the viewer ("Release"; the open page renews the
 * claim every minute) or someone else ("Take over").
 */
export function claimPanel(kind: 'app' | 'revision', appId: string, claim: (Claim & { mine: boolean }) | null, form: FormContext): SafeHtml {
  const url = `${reviewPath(kind, appId)}/claim`;
  if (!claim) {
    return html`<div id="claim" class="claim free">Nobody is reviewing this.
      ${actionButton({ url, label: 'Start review', form, target: '#claim', variant: 'primary' })}</div>`;
  }
  if (claim.mine) {
    return html`<div id="claim" class="claim" hx-get="${url}" hx-trigger="every 60s" hx-swap="outerHTML">
      You are reviewing this until ${formatTime(claim.expiresAt)}; others see that.
      ${actionButton({ url: `${url}/release`, label: 'Release', form, target: '#claim' })}</div>`;
  }
  return html`<div id="claim" class="claim taken"><strong>${claim.adminEmail}</strong> is reviewing this (until ${formatTime(claim.expiresAt)}).
    ${actionButton({ url: `${url}/take-over`, label: 'Take over', form, target: '#claim', confirm: `Take over the review from ${claim.adminEmail}?` })}</div>`;
}

export interface Reason {
  id: string;
  text: string;
}

export interface DecisionPanelData {
  kind: 'app' | 'revision';
  appId: string;
  /** The version the reviewer is looking at: the app's, or the revision's; posted with the decision. */
  version: number;
  /** The queue filter, so "& next" stays within it. */
  queue: string;
  reasons: readonly Reason[];
  form: FormContext;
  canDecide: boolean;
  message: Message;
  /** Kept after a refused rejection, so the reviewer does not lose what they wrote. */
  draft?: { reasons: string[]; text: string };
}

export function decisionPanel(data: DecisionPanelData, warnings: ReviewWarning[]): SafeHtml {
  const base = reviewPath(data.kind, data.appId);
  const post = (action: string) => html`method="post" action="${base}/${action}" hx-post="${base}/${action}" hx-target="#review" hx-swap="outerHTML"`;
  const hidden = hiddenFields({ _csrf: data.form.csrf, version: data.version, queue: data.queue, returnTo: data.form.returnTo });
  return html`<section class="panel" id="decision">
    <h2>Decision</h2>
    ${notice(data.message)}
    ${
      data.canDecide
        ? html`<form class="approve" ${post('approve')}>
            ${hidden}
            ${
              warnings.length ? html`<label class="check"><input type="checkbox" name="checked" value="yes"> I have checked the warnings</label>` : ''
            }
            <button type="submit" class="primary" data-shortcut="a">Approve</button>
            <button type="submit" class="primary" name="then" value="next">Approve &amp; next</button>
          </form>
          <form ${post('reject')}>
            ${hidden}
            <fieldset><legend>Reject — reasons the developer will read</legend>
              <div class="checks">${data.reasons.map(
                (reason) =>
                  html`<label><input type="checkbox" name="reasons" value="${reason.id}"${data.draft?.reasons.includes(reason.id) ? html` checked` : ''}> ${reason.text}</label>`,
              )}</div>
              <label for="reason">Reason</label>
              <textarea id="reason" name="reason" maxlength="2000" placeholder="Anything else the developer should fix" data-shortcut="r">${data.draft?.text ?? ''}</textarea>
              <button type="submit" class="danger">Reject</button>
              <button type="submit" class="danger" name="then" value="next">Reject &amp; next</button>
            </fieldset>
          </form>`
        : html`<p class="muted">Your role cannot decide reviews.</p>`
    }
  </section>`;
}

export interface QueueLinks {
  queue: string;
  previous: string | null;
  next: string | null;
  nextUnclaimed: string | null;
}

export interface ReviewPageData {
  kind: 'app' | 'revision';
  dossier: AppDossier;
  /** undefined: nothing is under review here, so there is no claim to show. */
  claim: (Claim & { mine: boolean }) | null | undefined;
  decision: DecisionPanelData | null;
  warnings: ReviewWarning[];
  links: QueueLinks;
  /** Why there is nothing to decide (already decided, no pending revision). */
  closed: string | null;
  /** A refused action's message when there is no decision panel to show it in. */
  message: Message;
  form: FormContext;
  /** The publishing team, for a team app. */
  team?: ReviewTeam | null;
}

function queueNavigation(links: QueueLinks): SafeHtml {
  const link = (href: string | null, label: string, key: string) =>
    href ? html`<a href="${href}" data-shortcut="${key}">${label}</a>` : html`<span class="muted">${label}</span>`;
  return html`<nav class="queue-nav" aria-label="Queue">
    ${link(links.previous, '← Previous', 'k')} ${link(links.next, 'Next →', 'j')} ${link(links.nextUnclaimed, 'Next unclaimed', 'n')}
    ${shortcutsLegend([
      ['a', 'approve'],
      ['r', 'write a rejection'],
      ['n', 'next unclaimed'],
      ['j', 'next'],
      ['k', 'previous'],
    ])}
  </nav>`;
}

/** Everything that should stop a one-click approval, in one place above the buttons. */
function warningsPanel(kind: 'app' | 'revision', dossier: AppDossier, warnings: ReviewWarning[]): SafeHtml {
  if (warnings.length === 0) return html``;
  const app = dossier.app;
  const checks = kind === 'app' ? app.assetChecks : (app.pendingRevision?.assetChecks ?? []);
  return html`<section class="panel warnings" id="warnings" aria-label="Warnings">
    <h2>Check before deciding</h2>
    ${warnings.some((w) => w.kind === 'images') ? assetProblems(checks) : ''}
    ${lookalikeWarning(dossier.lookalikes)}
    ${kind === 'revision' && app.pendingRevision ? addedPermissionsWarning(app.pendingRevision.addedPermissions) : ''}
  </section>`;
}

export function reviewPage(data: ReviewPageData): SafeHtml {
  const { dossier } = data;
  const app = dossier.app;
  const revision = data.kind === 'revision' ? dossier.revision : null;
  return html`<div id="review">
    ${queueNavigation(data.links)}
    ${data.claim !== undefined ? claimPanel(data.kind, app.id, data.claim, data.form) : ''}
    <p>${badge(app.status)} ${app.featured ? badge('FEATURED') : ''} <span class="muted">${
      revision
        ? `Changes proposed ${formatTime(revision.createdAt)}, last changed ${formatTime(revision.updatedAt)} · live listing shown as published`
        : `Submitted ${formatTime(app.submittedAt)}`
    } ·</span> <a href="/admin/apps/${app.id}">App page</a></p>
    ${notice(data.message)}
    ${data.closed ? html`<p class="notice notice-ok" role="status">${data.closed}</p>` : ''}
    ${warningsPanel(data.kind, dossier, data.warnings)}
    ${revision ? diffTable('Proposed changes', revision.diff, 'Left: the live listing; right: the listing once approved.') : ''}
    ${
      data.kind === 'app' && dossier.resubmission
        ? diffTable(
            'Changes since the last rejection',
            dossier.resubmission.diff,
            `Rejected ${formatTime(dossier.resubmission.rejectedAt)}${dossier.resubmission.reason ? `: ${dossier.resubmission.reason}` : ''}`,
          )
        : ''
    }
    ${data.decision ? decisionPanel(data.decision, data.warnings) : ''}
    <div class="columns">
      ${listingPreview(app, dossier.developer, dossier.images)}
      ${reviewerContext(dossier)}
    </div>
    ${data.team ? reviewTeamPanel(data.team) : ''}
    ${assetChecksTable(app)}
    ${historyTable(dossier.history)}
  </div>`;
}
