import { REVIEW_TARGET_HOURS, VERIFICATION_TARGET_HOURS } from '../notifications/notifications.service.ts';
import type { Urgency, Waiting } from '../../../views/admin/waiting.ts';
export type { Urgency, Waiting } from '../../../views/admin/waiting.ts';

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
