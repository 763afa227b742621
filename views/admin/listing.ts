import { html, trustedHtml, type SafeHtml } from '../html.ts';
import { badge, dataTable, definitionList, externalLink } from './components.ts';
import { formatTime, statusLabel } from './format.ts';

export interface HistoryEntry {
  action: string;
  fromStatus: string;
  toStatus: string;
  /** The admin's e-mail for `admin:<id>`, else the actor as recorded (`cli`, `developer:<id>`). */
  actor: string;
  version: number;
  reason: string | null;
  at: Date;
}

export interface Lookalike {
  id: string;
  name: string;
  slug: string;
  similarity: number;
}

export interface PendingRevisionDetail {
  id: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  diff: FieldChange[];
}

/** A platform scope the app asks for, and why (as users will read it). */
export interface Permission {
  scope: string;
  label: string;
  reason: string;
}

/** What the check of one listed image found. */
export interface AssetCheck {
  field: string;
  url: string;
  ok: boolean;
  format: string | null;
  width: number | null;
  height: number | null;
  problems: string[];
  mirrorUrl: string | null;
  checkedAt: Date | string;
}

/** The listing as the console draws it (the API's owner view has these fields and more). */
export interface ReviewedApp {
  id: string;
  slug: string;
  name: string;
  description: string;
  longDescriptionHtml: string | null;
  category: string;
  environment: string;
  websiteUrl: string | null;
  supportUrl: string | null;
  privacyPolicyUrl: string | null;
  termsOfServiceUrl: string | null;
  screenshots: { url: string; caption: string | null; order: number }[];
  permissions: Permission[] | null;
  dataHandling: {
    storesUserData: boolean;
    locations: string[];
    thirdParties: { name: string; purpose: string }[];
    retentionDays: number | null;
  } | null;
  status: string;
  featured: boolean;
  installCount: number;
  activeInstalls: number;
  version: number;
  updatedAt: Date | string;
  submittedAt: Date | string | null;
  rejectionReason: string | null;
  reviewNotes: string | null;
  assetChecks: AssetCheck[];
  pendingRevision: { addedPermissions: Permission[]; assetChecks: AssetCheck[] } | null;
}

/** A listing image as a reviewer is shown it: the stored copy, or "not stored" with the developer's URL as text. */
export type ShownImage = { mirrored: true; url: string } | { mirrored: false; sourceUrl: string };

/** One app with everything its console pages show; `App` is the module's fuller view of the listing. */
export interface AppDossier<App extends ReviewedApp = ReviewedApp> {
  app: App;
  developer: { id: string; name: string; email: string; companyName: string | null; websiteUrl: string | null; status: string };
  history: HistoryEntry[];
  lookalikes: Lookalike[];
  oauthClient: { clientId: string; name: string | null; owner: { id: string; name: string; email: string } | null } | null;
  revision: PendingRevisionDetail | null;
  /** A PENDING app that was rejected before: what changed since the rejection (null diff: no snapshot was kept then). */
  resubmission: { rejectedAt: Date; reason: string | null; diff: FieldChange[] | null } | null;
  /** Feature (only while approved), unfeature (while featured), and the lifecycle actions the state allows. */
  actions: { lifecycle: string[]; feature: boolean; unfeature: boolean };
  /** The listing's images as the reviewer is shown them (the mirrored copies where there are). */
  images: { logo: ShownImage | null; banner: ShownImage | null; screenshots: ShownImage[] };
}

/**
 * Field-by-field differences between two versions of a listing, as a reviewer reads them: for a
 * revision, the live listing against the proposed change set; for a resubmission, the version
 * last rejected against the one submitted now. Long texts also get a line diff.
 */
export type LineChange = { kind: 'same' | 'add' | 'del'; text: string };

export interface FieldChange {
  /** The listing field's name (`longDescription`, `logoUrl`, …). */
  field: string;
  label: string;
  before: string | null;
  after: string | null;
  /** For multi-line text: the lines removed, added and kept (null when too long to compare). */
  lines: LineChange[] | null;
}

/**
 * One app as the review and detail pages show it: the listing as users will see it (its images
 * from the mirror only), and around it what a reviewer weighs — notes, asset checks, the
 * developer, the OAuth client's owner, look-alike names, history, diffs.
 */
type App = ReviewedApp;

/** A stored copy, or "not stored" with the developer's URL as text: nothing here loads from their server. */
const image = (shown: ShownImage, className: string, alt: string) =>
  shown.mirrored
    ? html`<img class="${className}" src="${shown.url}" alt="${alt}" loading="lazy">`
    : html`<span class="${className} not-mirrored">${alt}: <strong>Not stored</strong> <small class="muted">(${shown.sourceUrl})</small></span>`;

export function listingPreview(app: App, developer: AppDossier['developer'], images: AppDossier['images']): SafeHtml {
  return html`<section class="panel listing" aria-label="Listing preview">
    <h2>Listing as users see it</h2>
    ${images.banner ? image(images.banner, 'banner', 'Banner') : ''}
    <div class="listing-head">
      ${images.logo ? image(images.logo, 'logo', 'Logo') : html`<span class="muted">No logo</span>`}
      <div>
        <h3 class="app-name">${app.name}</h3>
        <p>${app.description}</p>
        <p class="muted">${app.category} · ${app.environment} · by ${developer.name}${developer.companyName ? ` (${developer.companyName})` : ''}</p>
      </div>
    </div>
    ${
      app.screenshots.length
        ? html`<div class="shots">${app.screenshots.map(
            (shot, index) =>
              html`<figure>${image(images.screenshots[index]!, 'shot', shot.caption ?? `Screenshot ${shot.order + 1}`)}${shot.caption ? html`<figcaption>${shot.caption}</figcaption>` : ''}</figure>`,
          )}</div>`
        : html`<p class="muted">No screenshots.</p>`
    }
    ${disclosure(app)}
    <div class="markdown">${app.longDescriptionHtml ? trustedHtml(app.longDescriptionHtml) : html`<p class="muted">No long description.</p>`}</div>
    ${definitionList([
      ['Website', externalLink(app.websiteUrl)],
      ['Support', externalLink(app.supportUrl)],
      ['Privacy policy', externalLink(app.privacyPolicyUrl)],
      ['Terms of service', externalLink(app.termsOfServiceUrl)],
    ])}
  </section>`;
}

const permissionList = (permissions: Permission[]) =>
  html`<ul class="permissions">${permissions.map((p) => html`<li><strong>${p.label}</strong> <code>${p.scope}</code><br><span class="muted">Why: ${p.reason}</span></li>`)}</ul>`;

/** What the app may do with a workspace's data, as users will read it. */
function disclosure(app: Pick<App, 'permissions' | 'dataHandling'>): SafeHtml {
  const handling = app.dataHandling;
  return html`<section class="disclosure" aria-label="Data access">
    <h3>This app will be able to…</h3>
    ${app.permissions?.length ? permissionList(app.permissions) : html`<p class="muted">No permissions declared.</p>`}
    ${
      handling
        ? definitionList([
            ['Stores workspace data', handling.storesUserData ? 'Yes' : 'No'],
            ['Data locations', handling.locations.length ? handling.locations.join(', ') : '—'],
            [
              'Third parties',
              handling.thirdParties.length
                ? html`<ul class="plain">${handling.thirdParties.map((party) => html`<li>${party.name}: ${party.purpose}</li>`)}</ul>`
                : 'None',
            ],
            ['Kept for', handling.retentionDays === null ? 'Until the app is removed' : `${handling.retentionDays} days`],
          ])
        : html`<p class="muted">No data handling declared.</p>`
    }
  </section>`;
}

/** Scopes a revision asks for that the live listing does not have: they go public with the approval. */
export function addedPermissionsWarning(added: Permission[]): SafeHtml {
  if (added.length === 0) return html``;
  return html`<div class="notice notice-warning" role="note" id="new-permissions">
    <strong>New permissions.</strong> The revision asks for scopes the live listing does not have; approving makes them public:
    ${permissionList(added)}
  </div>`;
}

export function reviewerContext(dossier: AppDossier): SafeHtml {
  const { app, developer, oauthClient } = dossier;
  return html`<section class="panel">
    <h2>Developer</h2>
    ${definitionList([
      ['Name', html`<a href="/admin/developers/${developer.id}">${developer.name}</a>`],
      ['E-mail', developer.email],
      ['Company', developer.companyName ?? '—'],
      ['Website', externalLink(developer.websiteUrl)],
      ['Status', badge(developer.status)],
    ])}
    <h3>OAuth client</h3>
    ${
      oauthClient
        ? definitionList([
            ['Client id', html`<code>${oauthClient.clientId}</code>`],
            ['Name', oauthClient.name ?? '—'],
            [
              'Registered to',
              oauthClient.owner
                ? html`<a href="/admin/developers/${oauthClient.owner.id}">${oauthClient.owner.name}</a> (${oauthClient.owner.email})${
                    oauthClient.owner.id === developer.id ? '' : html` <strong class="alert-figure">— not this app's developer</strong>`
                  }`
                : html`<strong class="alert-figure">not registered</strong>`,
            ],
          ])
        : html`<p class="muted">None.</p>`
    }
    <h3>Notes for reviewers</h3>
    ${app.reviewNotes ? html`<p class="prewrap">${app.reviewNotes}</p>` : html`<p class="muted">None.</p>`}
  </section>`;
}

export function lookalikeWarning(lookalikes: Lookalike[]): SafeHtml {
  if (lookalikes.length === 0) return html``;
  return html`<div class="notice notice-warning" role="note">
    <strong>Look-alike names.</strong> Approved apps with similar names (possible impersonation):
    <ul class="lookalikes">${lookalikes.map((l) => html`<li><a href="/admin/apps/${l.id}">${l.name}</a> <span class="muted">${l.slug} · similarity ${l.similarity}</span></li>`)}</ul>
  </div>`;
}

/** The image checks that found a problem, as a warning (the full table is further down). */
export function assetProblems(checks: App['assetChecks']): SafeHtml {
  const failed = checks.filter((check) => !check.ok);
  if (failed.length === 0) return html``;
  return html`<div class="notice notice-warning" role="note" id="image-problems">
    <strong>Image problems.</strong> ${failed.length === 1 ? 'One image' : `${failed.length} images`} failed the checks:
    <ul>${failed.map((check) => html`<li><code>${check.field}</code>: ${check.problems.join('; ') || 'not usable'}</li>`)}</ul>
  </div>`;
}

export function assetChecksTable(app: App): SafeHtml {
  return html`<section class="panel"><h2>Asset checks</h2>
    ${dataTable({
      id: 'asset-checks',
      columns: [{ label: 'Field' }, { label: 'Result' }, { label: 'Format' }, { label: 'Size' }, { label: 'Problems' }, { label: 'Checked' }],
      rows: app.assetChecks.map(
        (check) => html`<tr>
          <td><code>${check.field}</code></td>
          <td>${badge(check.ok ? 'OK' : 'PROBLEM')}</td>
          <td>${check.format ?? '—'}</td>
          <td>${check.width && check.height ? `${check.width}×${check.height}` : '—'}</td>
          <td>${check.problems.length ? check.problems.join('; ') : '—'}</td>
          <td>${formatTime(check.checkedAt)}</td>
        </tr>`,
      ),
      empty: 'No results yet (checks run in the background and never block a decision).',
    })}</section>`;
}

export function historyTable(history: HistoryEntry[]): SafeHtml {
  return html`<section class="panel"><h2>History</h2>
    ${dataTable({
      id: 'history',
      columns: [{ label: 'When' }, { label: 'What' }, { label: 'Status' }, { label: 'By' }, { label: 'Version', kind: 'num' }, { label: 'Reason' }],
      rows: history.map(
        (entry) => html`<tr>
          <td>${formatTime(entry.at)}</td>
          <td>${entry.action}</td>
          <td>${entry.fromStatus === entry.toStatus ? statusLabel(entry.toStatus) : `${statusLabel(entry.fromStatus)} → ${statusLabel(entry.toStatus)}`}</td>
          <td>${entry.actor}</td>
          <td class="num">${entry.version}</td>
          <td class="prewrap">${entry.reason ?? ''}</td>
        </tr>`,
      ),
      empty: 'No transitions yet.',
    })}</section>`;
}

function changeCell(change: FieldChange): SafeHtml {
  if (change.lines) {
    return html`<td colspan="2"><pre class="line-diff">${change.lines.map(
      (line) => html`<span class="${line.kind}">${line.kind === 'add' ? '+ ' : line.kind === 'del' ? '− ' : '  '}${line.text}</span>`,
    )}</pre></td>`;
  }
  return html`<td class="before">${change.before === null ? html`<em class="muted">empty</em>` : html`<pre><del>${change.before}</del></pre>`}</td>
    <td class="after">${change.after === null ? html`<em class="muted">empty</em>` : html`<pre><ins>${change.after}</ins></pre>`}</td>`;
}

/** Field by field: what the reviewer must look at before deciding. */
export function diffTable(title: string, changes: FieldChange[] | null, note?: string): SafeHtml {
  return html`<section class="panel" id="diff"><h2>${title}</h2>
    ${note ? html`<p class="muted">${note}</p>` : ''}
    ${
      changes === null
        ? html`<p class="muted">No copy of the rejected version was kept (it was rejected before this console existed).</p>`
        : changes.length === 0
          ? html`<p>No field changed.</p>`
          : html`<table class="diff"><thead><tr><th scope="col">Field</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
              <tbody>${changes.map((change) => html`<tr><td>${change.label}</td>${changeCell(change)}</tr>`)}</tbody></table>`
    }
  </section>`;
}
