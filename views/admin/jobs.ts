import { html, type SafeHtml } from '../html.ts';
import { actionButton, dataTable, notice, type FormContext, type Message } from './components.ts';
import { formatDuration, formatTime } from './format.ts';

export interface QueueHealth {
  name: string;
  deadLetter: string | null;
  waiting: number;
  /** Failed attempts waiting for their next retry. */
  retrying: number;
  active: number;
  /** Failed for good (kept until pg-boss's retention drops them). */
  failed: number;
  deadLetters: number;
  oldestWaitingSince: Date | null;
}

export interface DeadJob {
  id: string;
  queue: string;
  deadLetter: string;
  data: unknown;
  /** The last attempt's error, as the worker threw it. */
  error: string;
  retries: number;
  diedAt: Date;
}

// The Jobs page: queue health (also the dashboard's polled widget), dead letters with "Retry".

const flagged = (value: number) => (value > 0 ? html`<strong class="alert-figure">${value}</strong>` : html`${value}`);

/** Re-fetches itself every 10 s with htmx; without JavaScript it is simply as of the page load. */
export function queueHealthWidget(queues: QueueHealth[], now = Date.now()): SafeHtml {
  return html`<section class="panel" id="queue-health" hx-get="/admin/queue-health" hx-trigger="every 10s" hx-swap="outerHTML">
    <h2>Queue health <span class="muted small">as of ${formatTime(new Date(now))}</span></h2>
    ${dataTable({
      id: 'queues',
      columns: [
        { label: 'Queue' },
        { label: 'Waiting', kind: 'num' },
        { label: 'Oldest' },
        { label: 'Running', kind: 'num' },
        { label: 'Retrying', kind: 'num' },
        { label: 'Failed', kind: 'num' },
        { label: 'Dead', kind: 'num' },
      ],
      rows: queues.map(
        (q) => html`<tr>
          <td><code>${q.name}</code></td>
          <td class="num">${q.waiting}</td>
          <td>${q.oldestWaitingSince ? formatDuration(now - q.oldestWaitingSince.getTime()) : '—'}</td>
          <td class="num">${q.active}</td>
          <td class="num">${q.retrying}</td>
          <td class="num">${flagged(q.failed)}</td>
          <td class="num">${q.deadLetter ? flagged(q.deadLetters) : html`<span class="muted">—</span>`}</td>
        </tr>`,
      ),
      empty: 'No queues.',
    })}
  </section>`;
}

export function deadJobRow(job: DeadJob, form: FormContext | null, message: Message = null): SafeHtml {
  return html`<tr id="dead-${job.id}">
    <td><code>${job.queue}</code></td>
    <td>${formatTime(job.diedAt)}</td>
    <td class="num">${job.retries}</td>
    <td class="error-text">${job.error || '—'}</td>
    <td><code class="data">${JSON.stringify(job.data)}</code></td>
    <td class="actions">${
      form
        ? actionButton({
            url: `/admin/jobs/dead/${encodeURIComponent(job.deadLetter)}/${job.id}/retry`,
            label: 'Retry',
            form,
            target: 'closest tr',
            variant: 'primary',
          })
        : ''
    }${notice(message)}</td>
  </tr>`;
}

/** A retried job's row after the swap: it has left the dead-letter queue. */
export const retriedRow = (jobId: string, queue: string, message: Message): SafeHtml =>
  html`<tr id="dead-${jobId}" class="settled"><td><code>${queue}</code></td><td colspan="4">Re-enqueued.</td><td class="actions">${notice(message)}</td></tr>`;

export function jobsPage(data: { health: SafeHtml; dead: DeadJob[]; form: FormContext }): SafeHtml {
  return html`<p class="subnav"><a aria-current="page" href="/admin/jobs">Queues</a> <a href="/admin/jobs/outbox">Outbox</a></p>
  ${data.health}
  <section class="panel">
    <h2>Dead letters</h2>
    <p class="muted">Jobs that failed every retry. "Retry" puts one back on its queue once; the worker runs it again.</p>
    ${dataTable({
      id: 'dead-letters',
      columns: [
        { label: 'Queue' },
        { label: 'Died' },
        { label: 'Retries', kind: 'num' },
        { label: 'Last error' },
        { label: 'Payload' },
        { label: 'Actions' },
      ],
      rows: data.dead.map((job) => deadJobRow(job, data.form)),
      empty: 'No dead letters.',
    })}
  </section>`;
}
