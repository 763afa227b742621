import { html, type SafeHtml } from '../html.ts';
import { badge, dataTable, filterForm, pager, type Paging } from './components.ts';
import { formatTime } from './format.ts';

/** The e-mails the service sent (SMTP) or kept (the dev outbox), newest first, and one message whole. */
export interface OutboxEntry {
  messageId: string;
  kind: string;
  to: string;
  subject: string;
  transport: 'smtp' | 'outbox';
  sentAt: Date;
}

/** The e-mails sent or kept, and one of them with its HTML rendered in a sandboxed frame. */
export function outboxPage(data: { rows: OutboxEntry[]; query: { q?: string; transport?: string }; paging: Paging }): SafeHtml {
  return html`<p class="subnav"><a href="/admin/jobs">Queues</a> <a aria-current="page" href="/admin/jobs/outbox">Outbox</a></p>
  ${filterForm({
    action: '/admin/jobs/outbox',
    search: data.query.q,
    placeholder: 'Recipient, subject or message id',
    selects: [
      {
        name: 'transport',
        label: 'Delivery',
        options: [
          { value: 'smtp', label: 'Sent (SMTP)' },
          { value: 'outbox', label: 'Kept (dev outbox)' },
        ],
        selected: data.query.transport,
      },
    ],
  })}
  <div id="results">
    ${dataTable({
      id: 'outbox',
      columns: [{ label: 'Subject' }, { label: 'To' }, { label: 'Kind' }, { label: 'Delivery' }, { label: 'When' }],
      rows: data.rows.map(
        (mail) => html`<tr>
          <td><a href="/admin/jobs/outbox/${encodeURIComponent(mail.messageId)}">${mail.subject}</a></td>
          <td>${mail.to}</td>
          <td><code>${mail.kind}</code></td>
          <td>${badge(mail.transport === 'smtp' ? 'SENT' : 'KEPT')}</td>
          <td>${formatTime(mail.sentAt)}</td>
        </tr>`,
      ),
      empty: 'No e-mail yet.',
    })}
    ${pager('/admin/jobs/outbox', data.query, data.paging)}
  </div>`;
}

export function outboxMessagePage(mail: OutboxEntry & { text: string }): SafeHtml {
  const preview = `/admin/jobs/outbox/${encodeURIComponent(mail.messageId)}/preview`;
  return html`<section class="panel">
    <dl class="facts"><dt>To</dt><dd>${mail.to}</dd><dt>Subject</dt><dd>${mail.subject}</dd><dt>Message id</dt><dd><code>${mail.messageId}</code></dd>
      <dt>Delivery</dt><dd>${mail.transport === 'smtp' ? 'sent through SMTP' : 'kept in the dev outbox (no SMTP_URL)'}, ${formatTime(mail.sentAt)}</dd></dl>
  </section>
  <section class="panel"><h2>HTML</h2>
    <iframe class="preview" sandbox="" referrerpolicy="no-referrer" title="Rendered e-mail" src="${preview}"></iframe>
  </section>
  <section class="panel"><h2>Text</h2><pre class="prewrap">${mail.text}</pre></section>`;
}
