import { activityChart, type ActivityDay } from './activity-chart.ts';
import { html, type SafeHtml } from '../html.ts';
import {
  actionButton,
  badge,
  dataTable,
  filterForm,
  hiddenFields,
  notice,
  pager,
  statusOptions,
  type FormContext,
  type Paging,
  type Message,
} from './components.ts';
import { formatTime } from './format.ts';
import { assetChecksTable, historyTable, listingPreview, lookalikeWarning, reviewerContext, type AppDossier } from './listing.ts';

/**
 * Apps as administrators look them up: the filterable list, and everything the review and detail
 * pages show about one app — the listing, its developer, history, look-alike names, the OAuth
 * client's owner, and the diff a reviewer needs for a revision or a resubmission.
 */
export interface AppSummary {
  id: string;
  name: string;
  slug: string;
  status: string;
  category: string;
  featured: boolean;
  version: number;
  installCount: number;
  activeInstalls: number;
  developer: { id: string; name: string };
  updatedAt: Date;
  hasPendingRevision: boolean;
  /** Feature (only while approved), unfeature (while featured), and the lifecycle actions the state allows. */
  actions: { lifecycle: string[]; feature: boolean; unfeature: boolean };
}

// The app list and one app's page: feature, suspend/relist, support edits. Buttons come pre-filtered by role.

export interface AppButtons {
  feature: boolean;
  unfeature: boolean;
  suspend: boolean;
  relist: boolean;
  review: 'app' | 'revision' | null;
}

function appButtons(app: { id: string; name: string }, buttons: AppButtons, form: FormContext, view: 'row' | 'panel'): SafeHtml {
  const target = view === 'row' ? 'closest tr' : '#app-actions';
  const button = (action: string, label: string, variant: 'primary' | 'danger' | 'plain', confirm?: string) =>
    actionButton({ url: `/admin/apps/${app.id}/${action}`, label, form, target, variant, confirm, fields: { view } });
  return html`${buttons.review ? html`<a class="button primary" href="/admin/review/${buttons.review === 'app' ? 'apps' : 'revisions'}/${app.id}">Review${buttons.review === 'revision' ? ' revision' : ''}</a> ` : ''}${
    buttons.feature ? button('feature', 'Feature', 'plain') : ''
  }${buttons.unfeature ? button('unfeature', 'Unfeature', 'plain') : ''}${
    buttons.suspend ? button('suspend', 'Suspend', 'danger', `Suspend "${app.name}"? It leaves the public catalogue at once.`) : ''
  }${buttons.relist ? button('relist', 'Relist', 'plain', `Relist "${app.name}"? It returns to the public catalogue at once.`) : ''}`;
}

export function appRow(app: AppSummary, buttons: AppButtons, form: FormContext, message: Message = null): SafeHtml {
  return html`<tr id="app-${app.id}">
    <td><a href="/admin/apps/${app.id}">${app.name}</a> <div class="muted">${app.slug}</div></td>
    <td><a href="/admin/developers/${app.developer.id}">${app.developer.name}</a></td>
    <td>${badge(app.status)} ${app.featured ? badge('FEATURED') : ''} ${app.hasPendingRevision ? badge('REVISION') : ''}</td>
    <td>${app.category}</td>
    <td class="num">${app.version}</td>
    <td class="num">${app.activeInstalls} <span class="muted">of ${app.installCount}</span></td>
    <td>${formatTime(app.updatedAt)}</td>
    <td class="actions">${appButtons(app, buttons, form, 'row')}${notice(message)}</td>
  </tr>`;
}

export interface AppListData {
  rows: { app: AppSummary; buttons: AppButtons }[];
  query: { q?: string; status?: string; category?: string };
  paging: Paging;
  statuses: readonly string[];
  categories: readonly string[];
  form: FormContext;
}

export function appList(data: AppListData): SafeHtml {
  return html`${filterForm({
    action: '/admin/apps',
    search: data.query.q,
    placeholder: 'Name, slug or developer',
    selects: [
      { name: 'status', label: 'Status', options: statusOptions(data.statuses), selected: data.query.status },
      { name: 'category', label: 'Category', options: data.categories.map((c) => ({ value: c, label: c })), selected: data.query.category },
    ],
  })}
  <div id="results">
    ${dataTable({
      id: 'apps',
      columns: [
        { label: 'App' },
        { label: 'Developer' },
        { label: 'Status' },
        { label: 'Category' },
        { label: 'Version', kind: 'num' },
        { label: 'Active installs', kind: 'num' },
        { label: 'Updated' },
        { label: 'Actions' },
      ],
      rows: data.rows.map((row) => appRow(row.app, row.buttons, data.form)),
      empty: 'No app matches.',
    })}
    ${pager('/admin/apps', data.query, data.paging)}
  </div>`;
}

export function appActionsPanel(
  app: { id: string; name: string; status: string; featured: boolean; version: number },
  buttons: AppButtons,
  form: FormContext,
  message: Message = null,
): SafeHtml {
  return html`<div class="panel-actions" id="app-actions">
    ${badge(app.status)} ${app.featured ? badge('FEATURED') : ''} <span class="muted">version ${app.version}</span>
    ${appButtons(app, buttons, form, 'panel')}
    ${notice(message)}
  </div>`;
}

export interface SupportEditField {
  name: string;
  label: string;
  value: string;
  multiline?: boolean;
  type?: 'url' | 'text';
  required?: boolean;
  maxLength: number;
}

/** Support's edit of the live listing: text and URLs only; the developer is e-mailed the changes. */
export function supportEditForm(data: {
  appId: string;
  version: number;
  fields: SupportEditField[];
  form: FormContext;
  message: Message;
  note?: string;
}): SafeHtml {
  const url = `/admin/apps/${data.appId}/edit`;
  return html`<section class="panel" id="support-edit">
    <h2>Support edit</h2>
    <p class="muted">Minor fixes (typos, URLs) applied to the live listing at once. The developer is e-mailed each change; the audit log keeps before and after. The OAuth client cannot be changed here.</p>
    ${notice(data.message)}
    <form method="post" action="${url}" hx-post="${url}" hx-target="#app-page" hx-swap="outerHTML">
      ${hiddenFields({ _csrf: data.form.csrf, version: data.version, returnTo: data.form.returnTo })}
      ${data.fields.map((field) =>
        field.multiline
          ? html`<label for="edit-${field.name}">${field.label}</label><textarea id="edit-${field.name}" name="${field.name}" class="tall" maxlength="${field.maxLength}">${field.value}</textarea>`
          : html`<label for="edit-${field.name}">${field.label}</label><input id="edit-${field.name}" name="${field.name}" type="${field.type ?? 'text'}" value="${field.value}" maxlength="${field.maxLength}"${field.required ? html` required` : ''}>`,
      )}
      <label for="edit-note">Note to the developer (optional)</label>
      <input id="edit-note" name="note" type="text" maxlength="500" value="${data.note ?? ''}">
      <button type="submit" class="primary">Save changes</button>
    </form>
  </section>`;
}

export function appPage(data: {
  dossier: AppDossier;
  activity: ActivityDay[];
  buttons: AppButtons;
  form: FormContext;
  supportEdit: SafeHtml | null;
  message?: Message;
}): SafeHtml {
  const { dossier } = data;
  return html`<div id="app-page">
    ${appActionsPanel(dossier.app, data.buttons, data.form, data.message ?? null)}
    ${lookalikeWarning(dossier.lookalikes)}
    ${dossier.app.rejectionReason ? html`<div class="notice notice-error"><strong>Rejected:</strong> <span class="prewrap">${dossier.app.rejectionReason}</span></div>` : ''}
    <div class="columns">
      ${listingPreview(dossier.app, dossier.developer, dossier.images)}
      ${reviewerContext(dossier)}
    </div>
    <section class="panel" id="app-activity"><h2>Installs, uninstalls and active installs</h2>${activityChart(data.activity, `in the last ${data.activity.length} days`)}</section>
    ${data.supportEdit ?? ''}
    ${assetChecksTable(dossier.app)}
    ${historyTable(dossier.history)}
  </div>`;
}
