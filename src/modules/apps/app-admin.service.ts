import { enqueueCategoryCounts } from '../stats/stats.service.ts';
import { ApiError } from '../../http/problem.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import { decisionReason, FEATURABLE_STATUSES, nextStatus } from './app-state.ts';
import { assertCompleteListing } from './completeness.ts';
import type { OwnerAppView } from './apps.model.ts';
import { notifyAppDecision } from '../notifications/notifications.service.ts';
import { recordTransition } from './app-history.ts';
import { lockAppByRef } from './app-locks.ts';
import type { AppServiceDeps } from './apps.service.ts';
import { toOwnerView } from './owner-views.ts';
import { publishReviewedAssets } from '../assets/asset-publication.ts';
import { emitAppEvent, type AppEventType } from '../webhooks/webhook-events.ts';
import { bumpCatalogueVersion } from '../catalogue/catalogue-version.ts';

/** The admin's side of the app lifecycle, shared by the CLI and the admin console. */
export type AdminAppAction = 'approve' | 'reject' | 'suspend' | 'relist';

/** Actions after which the public catalogue (and so its category counts) may look different. */
const CHANGES_VISIBILITY: readonly AdminAppAction[] = ['approve', 'suspend', 'relist'];

/** The webhook event each decision emits; `reason` rides along when the admin gave one. */
const EVENTS: Record<AdminAppAction, AppEventType> = {
  approve: 'app.approved',
  reject: 'app.rejected',
  suspend: 'app.suspended',
  relist: 'app.relisted',
};

/**
 * Approves, rejects, suspends or relists an app named by id or slug. `version` is the version
 * the reviewer saw: if the developer edited the listing since, the decision is refused as stale
 * rather than applied to something nobody reviewed.
 */
/**
 * `version`: what the reviewer saw (a stale decision is refused). `checkedWarnings`: the warnings
 * the reviewer confirmed having checked before approving anyway, kept in the audit entry.
 */
export interface DecisionOptions {
  actor: Actor;
  version?: number;
  reason?: string;
  checkedWarnings?: string[];
}

export const overridden = (options: Pick<DecisionOptions, 'checkedWarnings'>) =>
  options.checkedWarnings?.length ? { warningsOverridden: options.checkedWarnings } : {};

export async function decideApp({ em, jobs }: AppServiceDeps, ref: string, action: AdminAppAction, options: DecisionOptions): Promise<OwnerAppView> {
  const reason = decisionReason(action, options.reason);
  const app = await em.transactional(async (tx) => {
    const locked = await lockAppByRef(tx, ref);
    const to = nextStatus(action, locked.status);
    if (options.version !== undefined && options.version !== locked.version) {
      throw new ApiError(
        409,
        'STALE_VERSION',
        `The app changed since version ${options.version} (now ${locked.version}); review the current version`,
      );
    }
    // Submission and every edit in review keep a listing complete; approval checks once more.
    if (action === 'approve') assertCompleteListing(locked);
    const from = locked.status;
    const now = new Date();
    locked.status = to;
    if (action === 'approve') {
      locked.reviewedAt = now;
      locked.firstApprovedAt ??= now;
      locked.rejectionReason = null;
      await publishReviewedAssets(tx, locked);
    } else if (action === 'reject') {
      locked.reviewedAt = now;
      locked.rejectionReason = reason;
    }
    recordTransition(tx, locked, { actor: options.actor.label, action, from, reason });
    recordAudit(tx, options.actor, {
      action: `app.${action}`,
      subjectType: 'app',
      subjectId: locked.id,
      before: { status: from, version: locked.version },
      after: { status: to, version: locked.version, ...overridden(options) },
      reason,
    });
    if (CHANGES_VISIBILITY.includes(action)) await enqueueCategoryCounts(jobs, tx);
    if (action === 'approve' || action === 'reject') {
      await notifyAppDecision(jobs, tx, locked.id, locked.version, action === 'approve' ? 'approved' : 'rejected', now);
    }
    await emitAppEvent(jobs, tx, EVENTS[action], locked.id, reason ? { reason } : {});
    if (CHANGES_VISIBILITY.includes(action)) await bumpCatalogueVersion(tx);
    return locked;
  });
  return toOwnerView(em, app);
}

/** Features an APPROVED app on the marketplace's front page, or takes it off (allowed in any state). */
export async function setFeatured({ em }: AppServiceDeps, ref: string, featured: boolean, actor: Actor): Promise<OwnerAppView> {
  const app = await em.transactional(async (tx) => {
    const locked = await lockAppByRef(tx, ref);
    if (featured && !FEATURABLE_STATUSES.includes(locked.status)) {
      throw new ApiError(409, 'INVALID_STATE_TRANSITION', `Only an approved app can be featured; this one is ${locked.status}`);
    }
    if (locked.featured === featured) return locked;
    locked.featured = featured;
    const action = featured ? 'feature' : 'unfeature';
    recordTransition(tx, locked, { actor: actor.label, action, from: locked.status });
    recordAudit(tx, actor, {
      action: `app.${action}`,
      subjectType: 'app',
      subjectId: locked.id,
      before: { featured: !featured },
      after: { featured },
    });
    await bumpCatalogueVersion(tx);
    return locked;
  });
  return toOwnerView(em, app);
}
