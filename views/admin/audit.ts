import { html, type SafeHtml } from '../html.ts';
import { dataTable, filterForm, pager, type Paging } from './components.ts';
import { formatTime } from './format.ts';

/**
 * The audit log as the console reads it, newest first, filtered by who, what and on which
 * subject. There is deliberately no way here (or anywhere) to change or remove an entry: the
 * table refuses updates and deletes itself.
 */
export interface AuditRow {
  id: string;
  actor: string;
  /** The admin's e-mail when the actor is an admin that still exists. */
  actorEmail: string | null;
  role: string | null;
  action: string;
  subjectType: string;
  subjectId: string;
  reason: string | null;
  before: unknown;
  after: unknown;
  at: Date;
}

/** Every admin action, newest first; read-only. */
const json = (value: unknown) =>
  value === null || value === undefined ? html`<span class="muted">—</span>` : html`<pre class="json">${JSON.stringify(value, null, 1)}</pre>`;

const subjectLink = (row: AuditRow) => {
  const href =
    row.subjectType === 'app' ? `/admin/apps/${row.subjectId}` : row.subjectType === 'developer' ? `/admin/developers/${row.subjectId}` : null;
  return href ? html`<a href="${href}">${row.subjectType} ${row.subjectId.slice(0, 8)}</a>` : html`${row.subjectType} <code>${row.subjectId}</code>`;
};

export function auditPage(data: {
  rows: AuditRow[];
  query: { q?: string; action?: string; subject?: string; actor?: string };
  paging: Paging;
  actions: string[];
  subjectTypes: string[];
  actors: string[];
}): SafeHtml {
  return html`${filterForm({
    action: '/admin/audit',
    search: data.query.q,
    placeholder: 'Subject id, reason or changed value',
    selects: [
      { name: 'actor', label: 'Who', options: data.actors.map((a) => ({ value: a, label: a })), selected: data.query.actor },
      { name: 'action', label: 'Action', options: data.actions.map((a) => ({ value: a, label: a })), selected: data.query.action },
      { name: 'subject', label: 'Subject', options: data.subjectTypes.map((s) => ({ value: s, label: s })), selected: data.query.subject },
    ],
  })}
  <div id="results">
    ${dataTable({
      id: 'audit',
      columns: [
        { label: 'When' },
        { label: 'Who' },
        { label: 'Role' },
        { label: 'What' },
        { label: 'Target' },
        { label: 'Reason' },
        { label: 'Before' },
        { label: 'After' },
      ],
      rows: data.rows.map(
        (row) => html`<tr>
          <td>${formatTime(row.at)}</td>
          <td>${row.actorEmail ?? row.actor}</td>
          <td>${row.role ?? html`<span class="muted">—</span>`}</td>
          <td><code>${row.action}</code></td>
          <td>${subjectLink(row)}</td>
          <td class="prewrap">${row.reason ?? ''}</td>
          <td>${json(row.before)}</td>
          <td>${json(row.after)}</td>
        </tr>`,
      ),
      empty: 'No entry matches.',
    })}
    ${pager('/admin/audit', data.query, data.paging)}
  </div>`;
}
