import { REVIEW_TARGET_HOURS, VERIFICATION_TARGET_HOURS } from '../notifications/notifications.service.ts';

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

const HOUR = 3_600_000;

const TARGETS = {
  verification: { dueAfter: VERIFICATION_TARGET_HOURS - 4, overdueAfter: VERIFICATION_TARGET_HOURS, label: `${VERIFICATION_TARGET_HOURS} h` },
  review: { dueAfter: 24, overdueAfter: REVIEW_TARGET_HOURS, label: `24–${REVIEW_TARGET_HOURS} h` },
} as const;

export function waitingFor(kind: keyof typeof TARGETS, since: Date | string, now = Date.now()): Waiting {
  const start = new Date(since);
  const waitedMs = Math.max(0, now - start.getTime());
  const target = TARGETS[kind];
  const urgency: Urgency = waitedMs >= target.overdueAfter * HOUR ? 'overdue' : waitedMs >= target.dueAfter * HOUR ? 'due' : 'ok';
  return { since: start, waitedMs, urgency, target: target.label };
}
