import { html, type SafeHtml } from '../html.ts';
import { actionButton, badge, dataTable, filterForm, notice, pager, type FormContext, type Paging } from './components.ts';
import { formatTime } from './format.ts';

/** Reviews as moderators see them: hidden ones included, searchable by text, author and app. */
export interface ModerationRow {
  id: string;
  rating: number;
  title: string | null;
  body: string | null;
  authorName: string | null;
  hidden: boolean;
  app: { id: string; name: string; slug: string };
  updatedAt: Date;
}

/** User reviews of apps, hidden ones included; "Hide"/"Unhide" for those who moderate. */
type Message = { kind: 'ok' | 'error'; text: string } | null;

const stars = (rating: number) => '★'.repeat(rating) + '☆'.repeat(5 - rating);

export function reviewRow(review: ModerationRow, form: FormContext | null, message: Message = null): SafeHtml {
  return html`<tr id="review-${review.id}">
    <td><a href="/admin/apps/${review.app.id}">${review.app.name}</a></td>
    <td><span aria-label="${review.rating} of 5">${stars(review.rating)}</span></td>
    <td>${review.title ? html`<strong>${review.title}</strong>` : ''}${review.body ? html`<div class="prewrap">${review.body}</div>` : ''}</td>
    <td>${review.authorName ?? html`<span class="muted">anonymous</span>`}</td>
    <td>${badge(review.hidden ? 'HIDDEN' : 'VISIBLE')}</td>
    <td>${formatTime(review.updatedAt)}</td>
    <td class="actions">${
      form
        ? actionButton({
            url: `/admin/reviews/${review.id}/${review.hidden ? 'unhide' : 'hide'}`,
            label: review.hidden ? 'Unhide' : 'Hide',
            form,
            target: 'closest tr',
            variant: review.hidden ? 'plain' : 'danger',
          })
        : ''
    }${notice(message)}</td>
  </tr>`;
}

export function reviewsPage(data: {
  rows: ModerationRow[];
  query: { q?: string; visibility?: string };
  paging: Paging;
  form: FormContext | null;
}): SafeHtml {
  return html`${filterForm({
    action: '/admin/reviews',
    search: data.query.q,
    placeholder: 'Title, text, author or app',
    selects: [
      {
        name: 'visibility',
        label: 'Shown',
        options: [
          { value: 'visible', label: 'Visible' },
          { value: 'hidden', label: 'Hidden' },
        ],
        selected: data.query.visibility,
      },
    ],
  })}
  <div id="results">
    ${dataTable({
      id: 'reviews',
      columns: [
        { label: 'App' },
        { label: 'Rating' },
        { label: 'Review' },
        { label: 'Author' },
        { label: 'Shown' },
        { label: 'Written' },
        { label: 'Actions' },
      ],
      rows: data.rows.map((review) => reviewRow(review, data.form)),
      empty: 'No review matches.',
    })}
    ${pager('/admin/reviews', data.query, data.paging)}
  </div>`;
}
