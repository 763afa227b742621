import { html, type SafeHtml } from '../html.ts';
import type { AppDossier } from '../../src/modules/apps/app-directory.ts';
import type { Claim } from '../../src/modules/apps/review-claims.ts';
import type { Waiting } from '../../src/modules/apps/review-targets.ts';
import { actionButton, badge, dataTable, filterForm, hiddenFields, notice, pager, type FormContext, type Paging } from './components.ts';
import { formatTime } from './format.ts';
import { assetChecksTable, diffTable, historyTable, listingPreview, lookalikeWarning, reviewerContext } from './listing.ts';
import { waitingBadge } from './waiting.ts';
import { reviewTeamPanel } from './teams.ts';
import type { ReviewTeam } from '../../src/modules/teams/team-directory.ts';

/** The review queue and the review page (one PENDING app, or one app's pending revision). */
type Message = { kind: 'ok' | 'error'; text: string } | null;

export interface QueueItem {
  kind: 'app' | 'revision';
  appId: string;
  name: string;
  slug: string;
  developer: { id: string; name: string };
  waiting: Waiting;
  position: number;
  resubmission: boolean;
  claim: (Claim & { mine: boolean }) | null;
}

const reviewPath = (kind: 'app' | 'revision', appId: string) => `/admin/review/${kind === 'app' ? 'apps' : 'revisions'}/${appId}`;

const claimText = (claim: QueueItem['claim']) =>
  claim ? html`<span class="claim-holder">${claim.mine ? 'You' : claim.adminEmail}</span> <span class="muted">until ${formatTime(claim.expiresAt).slice(11)}</span>` : html`<span class="muted">—</span>`;

export function queuePage(data: { items: QueueItem[]; query: { q?: string; kind?: string }; paging: Paging }): SafeHtml {
  const { items } = data;
  return html`<p class="muted">Oldest first. Opening an item claims it for a few minutes, so other reviewers see that you are on it.</p>
  ${filterForm({
    action: '/admin/review',
    search: data.query.q,
    placeholder: 'App, slug or developer',
    selects: [{ name: 'kind', label: 'Kind', options: [{ value: 'app', label: 'New apps and resubmissions' }, { value: 'revision', label: 'Revisions' }], selected: data.query.kind }],
  })}
  <div id="results">${dataTable({
    id: 'review-queue',
    columns: [{ label: '#', kind: 'num' }, { label: 'Item' }, { label: 'Kind' }, { label: 'Developer' }, { label: 'Waiting' }, { label: 'Being reviewed by' }],
    rows: items.map(
      (item) => html`<tr id="queue-${item.kind}-${item.appId}">
        <td class="num">${item.position}</td>
        <td><a href="${reviewPath(item.kind, item.appId)}">${item.name}</a> <span class="muted">${item.slug}</span></td>
        <td>${item.kind === 'app' ? (item.resubmission ? 'Resubmission' : 'New app') : 'Revision'}</td>
        <td><a href="/admin/developers/${item.developer.id}">${item.developer.name}</a></td>
        <td>${waitingBadge(item.waiting)}</td>
        <td>${claimText(item.claim)}</td>
      </tr>`,
    ),
    empty: 'Nothing waits for review.',
  })}
  ${pager('/admin/review', data.query, data.paging)}</div>`;
}

/** Who is on this review; polled every minute by the open page, which renews the viewer's own claim. */
export function claimPanel(kind: 'app' | 'revision', appId: string, claim: Claim & { mine: boolean }, form: FormContext): SafeHtml {
  const url = `${reviewPath(kind, appId)}/claim`;
  return html`<div id="claim" class="claim${claim.mine ? '' : ' taken'}" hx-get="${url}" hx-trigger="every 60s" hx-swap="outerHTML">
    ${
      claim.mine
        ? html`You are reviewing this until ${formatTime(claim.expiresAt)}; others see that.`
        : html`<strong>${claim.adminEmail}</strong> is reviewing this (until ${formatTime(claim.expiresAt)}).
            ${actionButton({ url: `${url}/take-over`, label: 'Take over', form, target: '#claim', confirm: `Take over the review from ${claim.adminEmail}?` })}`
    }
  </div>`;
}

export interface Reason {
  id: string;
  text: string;
}

export interface DecisionPanelData {
  kind: 'app' | 'revision';
  appId: string;
  /** The version the reviewer is looking at: the app's, or the revision's. */
  version: number;
  reasons: readonly Reason[];
  form: FormContext;
  canDecide: boolean;
  message: Message;
  /** Kept after a refused rejection, so the reviewer does not lose what they wrote. */
  draft?: { reasons: string[]; text: string };
}

export function decisionPanel(data: DecisionPanelData): SafeHtml {
  const base = reviewPath(data.kind, data.appId);
  const post = (action: string) => html`method="post" action="${base}/${action}" hx-post="${base}/${action}" hx-target="#review" hx-swap="outerHTML"`;
  return html`<section class="panel" id="decision">
    <h2>Decision <span class="muted small">on ${data.kind === 'app' ? 'version' : 'revision version'} ${data.version}</span></h2>
    ${notice(data.message)}
    ${
      data.canDecide
        ? html`<form class="inline" ${post('approve')}>
            ${hiddenFields({ _csrf: data.form.csrf, version: data.version, returnTo: data.form.returnTo })}
            <button type="submit" class="primary">Approve</button>
          </form>
          <form ${post('reject')}>
            ${hiddenFields({ _csrf: data.form.csrf, version: data.version, returnTo: data.form.returnTo })}
            <fieldset><legend>Reject — reasons the developer will read</legend>
              <div class="checks">${data.reasons.map(
                (reason) => html`<label><input type="checkbox" name="reasons" value="${reason.id}"${data.draft?.reasons.includes(reason.id) ? html` checked` : ''}> ${reason.text}</label>`,
              )}</div>
              <label for="reason">Reason</label>
              <textarea id="reason" name="reason" maxlength="2000" placeholder="Anything else the developer should fix">${data.draft?.text ?? ''}</textarea>
              <button type="submit" class="danger">Reject</button>
            </fieldset>
          </form>`
        : html`<p class="muted">Your role cannot decide reviews.</p>`
    }
  </section>`;
}

export interface ReviewPageData {
  kind: 'app' | 'revision';
  dossier: AppDossier;
  claim: (Claim & { mine: boolean }) | null;
  decision: DecisionPanelData | null;
  /** Why there is nothing to decide (already decided, no pending revision). */
  closed: string | null;
  /** A refused action's message when there is no decision panel to show it in. */
  message: Message;
  form: FormContext;
  /** The publishing team, for a team app. */
  team?: ReviewTeam | null;
}

export function reviewPage(data: ReviewPageData): SafeHtml {
  const { dossier } = data;
  const app = dossier.app;
  return html`<div id="review">
    ${data.claim ? claimPanel(data.kind, app.id, data.claim, data.form) : ''}
    <p>${badge(app.status)} ${app.featured ? badge('FEATURED') : ''} <span class="muted">version ${app.version} · submitted ${formatTime(app.submittedAt)} ·</span>
      <a href="/admin/apps/${app.id}">App page</a></p>
    ${lookalikeWarning(dossier.lookalikes)}
    ${notice(data.message)}
    ${data.closed ? html`<p class="notice notice-ok" role="status">${data.closed}</p>` : ''}
    ${
      data.kind === 'revision' && dossier.revision
        ? diffTable(`Revision ${dossier.revision.version}: proposed changes`, dossier.revision.diff, `Proposed ${formatTime(dossier.revision.createdAt)}, last changed ${formatTime(dossier.revision.updatedAt)}. Left: live listing; right: after approval.`)
        : ''
    }
    ${
      data.kind === 'app' && dossier.resubmission
        ? diffTable('Changes since the last rejection', dossier.resubmission.diff, `Rejected ${formatTime(dossier.resubmission.rejectedAt)}${dossier.resubmission.reason ? `: ${dossier.resubmission.reason}` : ''}`)
        : ''
    }
    ${data.decision ? decisionPanel(data.decision) : ''}
    <div class="columns">
      ${listingPreview(app, dossier.developer, dossier.images)}
      ${reviewerContext(dossier)}
    </div>
    ${data.team ? reviewTeamPanel(data.team) : ''}
    ${assetChecksTable(app)}
    ${historyTable(dossier.history)}
  </div>`;
}
