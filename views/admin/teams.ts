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
  type ActionLabel,
  type FormContext,
  type Paging,
  type Message,
} from './components.ts';
import { formatTime } from './format.ts';

/** Teams as administrators look them up: a searchable list, and one team with its members, apps and audit. */
export interface TeamSummary {
  id: string;
  name: string;
  websiteUrl: string | null;
  verifiedDomain: string | null;
  suspended: boolean;
  createdAt: Date;
  memberCount: number;
  appCount: number;
  actions: TeamAction[];
}

export interface TeamDossier extends TeamSummary {
  members: { developerId: string; name: string; email: string; role: string; joinedAt: Date }[];
  apps: { id: string; name: string; slug: string; status: string; updatedAt: Date }[];
  audit: { action: string; actorName: string | null; target: string | null; createdAt: Date }[];
}

export interface ReviewTeam {
  id: string;
  name: string;
  verifiedDomain: string | null;
  suspended: boolean;
  otherApps: TeamDossier['apps'];
}

/** Administrators' side of teams: finding one by id or name, suspending and reinstating it. */
export type TeamAction = 'suspend' | 'reinstate';

// The team list and one team's page. `actions` are those the state allows and the admin's role holds.

const ACTION_LABELS: Record<TeamAction, ActionLabel> = {
  suspend: { label: 'Suspend', variant: 'danger', confirm: 'Suspend this team? Its apps leave the catalogue and its members cannot act for it.' },
  reinstate: { label: 'Reinstate', variant: 'plain', confirm: 'Reinstate this team? Its approved apps return to the catalogue.' },
};

const status = (team: TeamSummary) => badge(team.suspended ? 'SUSPENDED' : 'ACTIVE');

const teamButtons = (team: TeamSummary, actions: TeamAction[], form: FormContext, view: 'row' | 'panel') =>
  recordActions(`/admin/teams/${team.id}`, actions, ACTION_LABELS, form, view, 'team-actions');

export function teamRow(team: TeamSummary, actions: TeamAction[], form: FormContext, message: Message = null): SafeHtml {
  return html`<tr id="team-${team.id}">
    <td><a href="/admin/teams/${team.id}">${team.name}</a>${team.verifiedDomain ? html`<div class="muted">${team.verifiedDomain} ✓</div>` : ''}</td>
    <td>${status(team)}</td>
    <td class="num">${team.memberCount}</td>
    <td class="num">${team.appCount}</td>
    <td>${formatTime(team.createdAt)}</td>
    <td class="actions">${teamButtons(team, actions, form, 'row')}${notice(message)}</td>
  </tr>`;
}

export interface TeamListData {
  rows: { team: TeamSummary; actions: TeamAction[] }[];
  query: { q?: string };
  paging: Paging;
  form: FormContext;
}

export function teamList(data: TeamListData): SafeHtml {
  return html`${filterForm({ action: '/admin/teams', search: data.query.q, placeholder: 'Name, verified domain or id', selects: [] })}
  <div id="results">
    ${dataTable({
      id: 'teams',
      columns: [
        { label: 'Team' },
        { label: 'Status' },
        { label: 'Members', kind: 'num' },
        { label: 'Apps', kind: 'num' },
        { label: 'Created' },
        { label: 'Actions' },
      ],
      rows: data.rows.map((row) => teamRow(row.team, row.actions, data.form)),
      empty: 'No team matches.',
    })}
    ${pager('/admin/teams', data.query, data.paging)}
  </div>`;
}

export function teamActionsPanel(team: TeamSummary, actions: TeamAction[], form: FormContext, message: Message = null): SafeHtml {
  return html`<div class="panel-actions" id="team-actions">${status(team)} ${teamButtons(team, actions, form, 'panel')} ${notice(message)}</div>`;
}

export function teamPage(team: TeamDossier, actions: TeamAction[], form: FormContext): SafeHtml {
  return html`${teamActionsPanel(team, actions, form)}
  <section class="panel">
    <h2>Team</h2>
    ${definitionList([
      ['Website', externalLink(team.websiteUrl)],
      ['Verified domain', team.verifiedDomain ?? '—'],
      ['Created', formatTime(team.createdAt)],
    ])}
  </section>
  <section class="panel">
    <h2>Members</h2>
    ${dataTable({
      id: 'team-members',
      columns: [{ label: 'Developer' }, { label: 'Role' }, { label: 'Joined' }],
      rows: team.members.map(
        (m) =>
          html`<tr><td><a href="/admin/developers/${m.developerId}">${m.name}</a> <span class="muted">${m.email}</span></td><td>${m.role}</td><td>${formatTime(m.joinedAt)}</td></tr>`,
      ),
      empty: 'No members.',
    })}
  </section>
  <section class="panel">
    <h2>Apps</h2>
    ${teamAppsTable(team.apps)}
  </section>
  <section class="panel">
    <h2>Audit</h2>
    ${dataTable({
      id: 'team-audit',
      columns: [{ label: 'When' }, { label: 'Who' }, { label: 'What' }, { label: 'Target' }],
      rows: team.audit.map(
        (a) =>
          html`<tr><td>${formatTime(a.createdAt)}</td><td>${a.actorName ?? 'administrators'}</td><td><code>${a.action}</code></td><td>${a.target ?? ''}</td></tr>`,
      ),
      empty: 'Nothing yet.',
    })}
  </section>`;
}

export function teamAppsTable(apps: TeamDossier['apps']): SafeHtml {
  return dataTable({
    id: 'team-apps',
    columns: [{ label: 'App' }, { label: 'Status' }, { label: 'Updated' }],
    rows: apps.map(
      (app) =>
        html`<tr><td><a href="/admin/apps/${app.id}">${app.name}</a> <span class="muted">${app.slug}</span></td><td>${badge(app.status)}</td><td>${formatTime(app.updatedAt)}</td></tr>`,
    ),
    empty: 'No apps.',
  });
}

/** On the review page: who publishes the app when a team does. */
export function reviewTeamPanel(team: ReviewTeam): SafeHtml {
  return html`<section class="panel" id="review-team">
    <h2>Published by the team <a href="/admin/teams/${team.id}">${team.name}</a> ${team.suspended ? badge('SUSPENDED') : ''}</h2>
    ${definitionList([['Verified domain', team.verifiedDomain ?? 'none']])}
    <h3>The team's other apps</h3>
    ${teamAppsTable(team.otherApps)}
  </section>`;
}
