import { html, type SafeHtml } from '../html.ts';
import {
  badge,
  dataTable,
  definitionList,
  externalLink,
  filterForm,
  notice,
  pager,
  recordActions,
  statusOptions,
  type ActionLabel,
  type FormContext,
  type Paging,
  type Message,
} from './components.ts';
import { formatTime } from './format.ts';
import { waitingBadge, type Waiting } from './waiting.ts';

/**
 * Developers as administrators look them up: a searchable, filterable list (awaiting verification
 * first, oldest first) and one developer with their apps, OAuth clients and key count — never
 * key material.
 */
/** What the console may do to a developer in a given state. */
export type DeveloperAction = 'verify' | 'suspend' | 'reinstate';

export interface DeveloperSummary {
  id: string;
  name: string;
  email: string;
  companyName: string | null;
  status: 'PENDING_VERIFICATION' | 'VERIFIED' | 'SUSPENDED';
  createdAt: Date;
  appCount: number;
  /** Only while awaiting verification. */
  waiting: Waiting | null;
  actions: DeveloperAction[];
}

export interface DeveloperDossier extends DeveloperSummary {
  platformUserId: string;
  websiteUrl: string | null;
  bio: string | null;
  updatedAt: Date;
  activeKeyCount: number;
  apps: { id: string; name: string; slug: string; status: string; version: number; updatedAt: Date }[];
  oauthClients: { clientId: string; name: string; createdAt: Date }[];
}

// The developer list and one developer's page. `actions` are those the state allows and the admin's role holds.

const ACTION_LABELS: Record<DeveloperAction, ActionLabel> = {
  verify: { label: 'Verify', variant: 'primary' },
  suspend: {
    label: 'Suspend',
    variant: 'danger',
    confirm: 'Suspend this developer? Their API keys stop working and their apps leave the catalogue.',
  },
  reinstate: {
    label: 'Reinstate',
    variant: 'plain',
    confirm: 'Reinstate this developer? Their keys work again and their approved apps return to the catalogue.',
  },
};

const developerButtons = (developer: DeveloperSummary, actions: DeveloperAction[], form: FormContext, view: 'row' | 'panel') =>
  recordActions(`/admin/developers/${developer.id}`, actions, ACTION_LABELS, form, view, 'developer-actions');

export function developerRow(developer: DeveloperSummary, actions: DeveloperAction[], form: FormContext, message: Message = null): SafeHtml {
  return html`<tr id="developer-${developer.id}">
    <td><a href="/admin/developers/${developer.id}">${developer.name}</a>${developer.companyName ? html`<div class="muted">${developer.companyName}</div>` : ''}</td>
    <td>${developer.email}</td>
    <td>${badge(developer.status)}</td>
    <td>${developer.waiting ? waitingBadge(developer.waiting) : formatTime(developer.createdAt)}</td>
    <td class="num">${developer.appCount}</td>
    <td class="actions">${developerButtons(developer, actions, form, 'row')}${notice(message)}</td>
  </tr>`;
}

export interface DeveloperListData {
  rows: { developer: DeveloperSummary; actions: DeveloperAction[] }[];
  query: { q?: string; status?: string };
  paging: Paging;
  statuses: readonly string[];
  form: FormContext;
}

export function developerList(data: DeveloperListData): SafeHtml {
  return html`${filterForm({
    action: '/admin/developers',
    search: data.query.q,
    placeholder: 'Name, e-mail or company',
    selects: [{ name: 'status', label: 'Status', options: statusOptions(data.statuses), selected: data.query.status }],
  })}
  <div id="results">
    ${dataTable({
      id: 'developers',
      columns: [
        { label: 'Developer' },
        { label: 'E-mail' },
        { label: 'Status' },
        { label: 'Registered / waiting' },
        { label: 'Apps', kind: 'num' },
        { label: 'Actions' },
      ],
      rows: data.rows.map((row) => developerRow(row.developer, row.actions, data.form)),
      empty: 'No developer matches.',
    })}
    ${pager('/admin/developers', data.query, data.paging)}
  </div>`;
}

export function developerActionsPanel(developer: DeveloperSummary, actions: DeveloperAction[], form: FormContext, message: Message = null): SafeHtml {
  return html`<div class="panel-actions" id="developer-actions">
    ${badge(developer.status)} ${developer.waiting ? waitingBadge(developer.waiting) : ''}
    ${developerButtons(developer, actions, form, 'panel')}
    ${notice(message)}
  </div>`;
}

export function developerPage(developer: DeveloperDossier, actions: DeveloperAction[], form: FormContext): SafeHtml {
  return html`${developerActionsPanel(developer, actions, form)}
  <section class="panel">
    <h2>Profile</h2>
    ${definitionList([
      ['E-mail', developer.email],
      ['Company', developer.companyName ?? '—'],
      ['Website', externalLink(developer.websiteUrl)],
      ['Platform user', html`<code>${developer.platformUserId}</code>`],
      ['Registered', formatTime(developer.createdAt)],
      ['Profile updated', formatTime(developer.updatedAt)],
      ['Active API keys', String(developer.activeKeyCount)],
    ])}
    ${developer.bio ? html`<h3>Bio</h3><p class="prewrap">${developer.bio}</p>` : ''}
  </section>
  <section class="panel">
    <h2>Apps</h2>
    ${dataTable({
      id: 'developer-apps',
      columns: [{ label: 'App' }, { label: 'Status' }, { label: 'Version', kind: 'num' }, { label: 'Updated' }],
      rows: developer.apps.map(
        (app) =>
          html`<tr><td><a href="/admin/apps/${app.id}">${app.name}</a> <span class="muted">${app.slug}</span></td><td>${badge(app.status)}</td><td class="num">${app.version}</td><td>${formatTime(app.updatedAt)}</td></tr>`,
      ),
      empty: 'No apps yet.',
    })}
  </section>
  <section class="panel">
    <h2>OAuth clients</h2>
    ${dataTable({
      id: 'developer-clients',
      columns: [{ label: 'Client id' }, { label: 'Name' }, { label: 'Registered' }],
      rows: developer.oauthClients.map(
        (c) => html`<tr><td><code>${c.clientId}</code></td><td>${c.name}</td><td>${formatTime(c.createdAt)}</td></tr>`,
      ),
      empty: 'None registered.',
    })}
  </section>`;
}
