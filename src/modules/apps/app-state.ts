import { ApiError, validationFailed } from '../../http/problem.ts';
import type { AppStatus } from './app.entity.ts';

/**
 * The app lifecycle, as data. Every status change in the code goes through `assertTransition`
 * with one of these actions; nothing else compares statuses to decide what may happen.
 *
 *   DRAFT → PENDING (submit) → APPROVED | REJECTED (admin); REJECTED → PENDING (resubmit);
 *   PENDING → DRAFT (withdraw, by its developer); APPROVED ⇄ SUSPENDED (admin).
 */
export const APP_TRANSITIONS = {
  submit: { from: ['DRAFT', 'REJECTED'], to: 'PENDING', by: 'developer' },
  withdraw: { from: ['PENDING'], to: 'DRAFT', by: 'developer' },
  approve: { from: ['PENDING'], to: 'APPROVED', by: 'admin' },
  reject: { from: ['PENDING'], to: 'REJECTED', by: 'admin' },
  suspend: { from: ['APPROVED'], to: 'SUSPENDED', by: 'admin' },
  relist: { from: ['SUSPENDED'], to: 'APPROVED', by: 'admin' },
} as const satisfies Record<string, { from: readonly AppStatus[]; to: AppStatus; by: 'developer' | 'admin' }>;

export type AppAction = keyof typeof APP_TRANSITIONS;

/** Where the developer may still PUT and DELETE; approved listings change only through revisions. */
export const EDITABLE_STATUSES: readonly AppStatus[] = ['DRAFT', 'PENDING', 'REJECTED'];
/** Where a revision may be opened. */
export const REVISABLE_STATUSES: readonly AppStatus[] = ['APPROVED', 'SUSPENDED'];
/** Where featuring makes sense. */
export const FEATURABLE_STATUSES: readonly AppStatus[] = ['APPROVED'];

/** The admin actions that apply to an app in this state (what the console offers). */
export const adminActionsFrom = (status: AppStatus): AppAction[] =>
  (Object.keys(APP_TRANSITIONS) as AppAction[]).filter(
    (action) => APP_TRANSITIONS[action].by === 'admin' && (APP_TRANSITIONS[action].from as readonly AppStatus[]).includes(status),
  );

export function nextStatus(action: AppAction, current: AppStatus): AppStatus {
  const rule = APP_TRANSITIONS[action];
  if (!(rule.from as readonly AppStatus[]).includes(current)) {
    throw new ApiError(409, 'INVALID_STATE_TRANSITION', `Cannot ${action} an app that is ${current}`);
  }
  return rule.to;
}

export function assertEditable(status: AppStatus, verb: 'edit' | 'delete'): void {
  if (!EDITABLE_STATUSES.includes(status)) {
    throw new ApiError(
      409,
      'APP_NOT_EDITABLE',
      `An ${status} app cannot be ${verb === 'edit' ? 'edited' : 'deleted'}; ${verb === 'edit' ? 'open a revision instead' : 'ask support'}`,
    );
  }
}

/** A decision's reason, trimmed; a rejection (of an app or a revision) must give one. */
export function decisionReason(decision: string, raw: string | undefined): string | null {
  const reason = raw?.trim() || null;
  if (decision === 'reject' && !reason) {
    throw validationFailed('A rejection needs a reason', [{ path: 'reason', message: 'must not be empty' }]);
  }
  return reason;
}
