import { ApiError, type ErrorCode } from '../../http/problem.ts';
import type { DeveloperStatus } from './developer.entity.ts';

/**
 * Minting keys and submitting apps need a verified account. A suspended developer is told they
 * are suspended (403 DEVELOPER_SUSPENDED), not that they still await verification.
 */
export function assertVerified(status: DeveloperStatus | undefined, action: { what: string; done: string }): void {
  if (status === 'VERIFIED') return;
  if (status === 'SUSPENDED') {
    throw new ApiError(403, 'DEVELOPER_SUSPENDED', `Your developer account is suspended: ${action.what} cannot be ${action.done}; contact support`);
  }
  throw new ApiError(403, 'DEVELOPER_NOT_VERIFIED', `${action.what} can be ${action.done} once an administrator has verified your account`);
}

/** What `assertVerified` refuses with: a route whose service asks it lists these among its problems. */
export const VERIFIED_PROBLEMS: ErrorCode[] = ['DEVELOPER_NOT_VERIFIED', 'DEVELOPER_SUSPENDED'];
