import { html, type SafeHtml } from '../html.ts';
import { formatDuration, formatTime } from './format.ts';

/**
 * The description's targets: a developer verified within 24 hours, an app reviewed within 24–48.
 * `due` means the target is near (verification) or its first bound is passed (review); `overdue`
 * means it is missed. The console colours waiting items by it.
 */
export type Urgency = 'ok' | 'due' | 'overdue';

export interface Waiting {
  since: Date;
  waitedMs: number;
  urgency: Urgency;
  /** As shown next to the time: `24 h`, `24–48 h`. */
  target: string;
}

/** How long something has waited, against its target; overdue items stand out. */
export const waitingBadge = (waiting: Waiting): SafeHtml =>
  html`<span class="waiting urgency-${waiting.urgency}" title="Waiting since ${formatTime(waiting.since)}">${formatDuration(waiting.waitedMs)}<span class="target"> / ${waiting.target}</span>${waiting.urgency === 'overdue' ? html` <strong>overdue</strong>` : ''}</span>`;
