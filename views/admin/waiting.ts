import { html, type SafeHtml } from '../html.ts';
import type { Waiting } from '../../src/modules/listing-review/review-targets.ts';
import { formatDuration, formatTime } from './format.ts';

/** How long something has waited, against its target; overdue items stand out. */
export const waitingBadge = (waiting: Waiting): SafeHtml =>
  html`<span class="waiting urgency-${waiting.urgency}" title="Waiting since ${formatTime(waiting.since)}">${formatDuration(waiting.waitedMs)}<span class="target"> / ${waiting.target}</span>${waiting.urgency === 'overdue' ? html` <strong>overdue</strong>` : ''}</span>`;
