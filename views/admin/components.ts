import { html, join, type Renderable, type SafeHtml } from '../html.ts';
import { statusLabel } from './format.ts';

/** Building blocks every console page shares. Plain data in, escaped markup out. */

/** What a page template needs to draw buttons that post: the session's CSRF token and where to come back to. */
export interface FormContext {
  csrf: string;
  returnTo: string;
}

export interface Column {
  label: string;
  /** `num` right-aligns. */
  kind?: 'num';
}

export function dataTable(options: { id: string; columns: Column[]; rows: SafeHtml[]; empty: string; caption?: string }): SafeHtml {
  return html`<div class="table-wrap" id="${options.id}">
    <table>
      ${options.caption ? html`<caption>${options.caption}</caption>` : ''}
      <thead><tr>${options.columns.map((c) => html`<th scope="col" class="${c.kind ?? ''}">${c.label}</th>`)}</tr></thead>
      <tbody>
        ${options.rows.length ? options.rows : html`<tr class="empty"><td colspan="${options.columns.length}">${options.empty}</td></tr>`}
      </tbody>
    </table>
  </div>`;
}

export interface Paging {
  page: number;
  totalPages: number;
  total: number;
}

/** Previous/next links that keep the list's filters. */
export function pager(path: string, query: Record<string, string | undefined>, paging: Paging): SafeHtml {
  const href = (page: number) => {
    const params = new URLSearchParams(Object.entries({ ...query, page: String(page) }).filter((e): e is [string, string] => Boolean(e[1])));
    return `${path}?${params}`;
  };
  return html`<nav class="pager" aria-label="Pages">
    <span>${paging.total} in all · page ${paging.page} of ${Math.max(1, paging.totalPages)}</span>
    ${paging.page > 1 ? html`<a rel="prev" href="${href(paging.page - 1)}">Previous</a>` : ''}
    ${paging.page < paging.totalPages ? html`<a rel="next" href="${href(paging.page + 1)}">Next</a>` : ''}
  </nav>`;
}

export interface SelectFilter {
  name: string;
  label: string;
  options: { value: string; label: string }[];
  selected?: string;
}

/**
 * The search box and filters above a list: a plain GET form; with htmx it refreshes only the
 * results (`#results`) as the admin types, and keeps the URL in step.
 */
export function filterForm(options: { action: string; search?: string; placeholder: string; selects?: SelectFilter[] }): SafeHtml {
  return html`<form class="filters" method="get" action="${options.action}" role="search"
      hx-get="${options.action}" hx-trigger="submit, input delay:300ms, change" hx-target="#results" hx-select="#results" hx-swap="outerHTML" hx-push-url="true">
    <label>Search <input type="search" name="q" value="${options.search ?? ''}" placeholder="${options.placeholder}" maxlength="200"></label>
    ${(options.selects ?? []).map(
      (select) => html`<label>${select.label}
        <select name="${select.name}">
          <option value="">All</option>
          ${select.options.map((o) => html`<option value="${o.value}"${o.value === select.selected ? html` selected` : ''}>${o.label}</option>`)}
        </select></label>`,
    )}
    <button type="submit">Filter</button>
  </form>`;
}

export const badge = (value: string) => html`<span class="badge badge-${value.toLowerCase().replace(/[^a-z]+/g, '-')}">${statusLabel(value)}</span>`;

/** A filter's options for stored statuses, each shown by its label. */
export const statusOptions = (values: readonly string[]) => values.map((value) => ({ value, label: statusLabel(value) }));

export const hiddenFields = (fields: Record<string, string | number>) =>
  join(Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${String(value)}">`));

export interface ActionButton {
  url: string;
  label: string;
  form: FormContext;
  /** htmx target of the response: the row or panel the action changes. */
  target: string;
  variant?: 'primary' | 'danger' | 'plain';
  /** Destructive actions ask first (htmx: a dialog; without JavaScript: a confirmation page). */
  confirm?: string;
  fields?: Record<string, string | number>;
}

/** htmx runs an `hx-confirm` starting with `js:` or `javascript:` as code; a question never does. */
const question = (text: string) => (/^\s*(js|javascript):/i.test(text) ? `“${text}”` : text);

/** One action as a form: posts and redirects without JavaScript, swaps `target` in place with htmx. */
export function actionButton(action: ActionButton): SafeHtml {
  return html`<form class="inline" method="post" action="${action.url}" hx-post="${action.url}" hx-target="${action.target}" hx-swap="outerHTML"${
    action.confirm ? html` hx-confirm="${question(action.confirm)}" hx-vals="${JSON.stringify({ confirmed: 'yes' })}"` : ''
  }>
    ${hiddenFields({ _csrf: action.form.csrf, returnTo: action.form.returnTo, ...action.fields })}
    <button type="submit" class="${action.variant ?? 'plain'}">${action.label}</button>
  </form>`;
}

/** What an action's button says, and asks first when the action is destructive. */
export type ActionLabel = Pick<ActionButton, 'label' | 'variant' | 'confirm'>;

/**
 * One record's action buttons: each posts to `${base}/${action}` and swaps the record's row, or on
 * the record's own page the panel `#${panel}`; `view` tells the route which of the two to answer.
 */
export function recordActions<A extends string>(
  base: string,
  actions: readonly A[],
  labels: Record<A, ActionLabel>,
  form: FormContext,
  view: 'row' | 'panel',
  panel: string,
): SafeHtml {
  return html`${actions.map((action) =>
    actionButton({ url: `${base}/${action}`, form, target: view === 'row' ? 'closest tr' : `#${panel}`, fields: { view }, ...labels[action] }),
  )}`;
}

/** What an action came to, shown beside what it changed. */
export type Message = { kind: 'ok' | 'error'; text: string } | null;

export const notice = (message: Message | undefined): SafeHtml =>
  message ? html`<p class="notice notice-${message.kind}" role="${message.kind === 'error' ? 'alert' : 'status'}">${message.text}</p>` : html``;

/** A link out of the console: never followed with our referrer or given access to this window. */
export const externalLink = (url: string | null | undefined, text?: string): Renderable =>
  url ? html`<a href="${url}" rel="noopener noreferrer nofollow" target="_blank">${text ?? url}</a>` : html`<span class="muted">—</span>`;

export const definitionList = (items: [string, Renderable][]) =>
  html`<dl class="facts">${items.map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;
