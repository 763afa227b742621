import { enqueueAssetChecks } from '../assets/asset-checks.service.ts';
import { publishReviewedAssets } from '../assets/asset-publication.ts';
import { changesImages } from '../assets/listed-assets.ts';
import { enqueueCategoryCounts } from '../stats/stats.service.ts';
import { ApiError, notFound, validationFailed } from '../../http/problem.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { overridden, type DecisionOptions } from './app-admin.service.ts';
import { notifyRevisionDecision } from '../notifications/notifications.service.ts';
import { assertClientBelongsTo } from '../oauth-clients/oauth-clients.service.ts';
import { AppRevision } from './app-revision.entity.ts';
import { claimRevisionVersion } from './revision-versions.ts';
import { decisionReason, REVISABLE_STATUSES } from './app-state.ts';
import { assertCompleteListing, assertSubmittable, listingAfter } from './completeness.ts';
import { withDeclaredPermissions } from './disclosure.ts';
import type { OwnerAppView, UpdateAppInput } from './apps.model.ts';
import { applyAppChanges, assertListingUrls } from './app-changes.ts';
import { recordTransition } from './app-history.ts';
import { lockAppByRef } from './app-locks.ts';
import { lockAppFor, type Caller } from '../teams/access.ts';
import type { AppServiceDeps, ListingWriteDeps } from './apps.service.ts';
import { toOwnerView } from './owner-views.ts';
import { emitAppEvent } from '../webhooks/webhook-events.ts';
import { bumpCatalogueVersion } from '../catalogue/catalogue-version.ts';

/**
 * Changes to an approved (or suspended) listing go through a revision: the developer proposes
 * a PUT-shaped change set, the live listing stays as it is, and an admin approves (applied
 * atomically) or rejects it. At most one revision is pending per app; a new proposal merges into it.
 */
export async function openRevision(
  { em, jobs, platformScopes }: ListingWriteDeps,
  caller: Caller,
  appId: string,
  proposal: UpdateAppInput,
): Promise<OwnerAppView> {
  if (Object.keys(proposal).length === 0) {
    throw validationFailed('The request body is invalid', [{ path: 'body', message: 'a revision must change at least one field' }]);
  }
  const changes = withDeclaredPermissions(proposal, platformScopes);
  const app = await em.transactional(async (tx) => {
    // The app row lock serialises proposals, so replacing the pending revision never races.
    const locked = await lockAppFor(tx, caller, appId, 'revise');
    if (!REVISABLE_STATUSES.includes(locked.status)) {
      throw new ApiError(409, 'INVALID_STATE_TRANSITION', `Revisions are for approved listings; an app that is ${locked.status} is edited directly`);
    }
    assertListingUrls(locked.environment, changes);
    if (changes.oauthClientId) await assertClientBelongsTo(tx, changes.oauthClientId, caller.developerId);
    const pending = await tx.findOne(AppRevision, { appId: locked.id, status: 'PENDING' });
    // A second proposal adds to the first (its fields win) rather than silently replacing it, and
    // takes the app's next revision version (never one an earlier revision had), so a reviewer's
    // decision on what they saw can be told from one on more, or on another revision.
    const merged: UpdateAppInput = { ...(pending?.changes as UpdateAppInput | undefined), ...changes };
    assertSubmittable(listingAfter(locked, merged));
    // The proposed images are checked (and mirrored) before a reviewer looks at the revision.
    if (changesImages(merged)) await enqueueAssetChecks(jobs, tx, locked.id);
    const version = await claimRevisionVersion(tx, locked.id);
    if (pending) {
      pending.changes = merged;
      pending.version = version;
    } else {
      tx.create(AppRevision, { appId: locked.id, changes: merged, status: 'PENDING', version });
    }
    return locked;
  });
  return toOwnerView(em, app);
}

export type RevisionDecision = 'approve' | 'reject';

/**
 * An admin's decision on an app's pending revision. Approval applies the change set to the live
 * listing in one transaction (version bump, Markdown re-rendered, slug unchanged once approved);
 * rejection keeps the listing and stores the reason. `version`, when given, is the revision
 * version the reviewer saw: a revision changed or replaced since then (versions never repeat for
 * an app, across revisions too) is refused as stale.
 */
export async function decideRevision(
  { em, jobs }: AppServiceDeps,
  ref: string,
  decision: RevisionDecision,
  options: DecisionOptions,
): Promise<OwnerAppView> {
  const reason = decisionReason(decision, options.reason);
  const app = await em.transactional(async (tx) => {
    const locked = await lockAppByRef(tx, ref);
    const revision = await tx.findOne(AppRevision, { appId: locked.id, status: 'PENDING' });
    if (!revision) throw notFound('Pending revision');
    if (options.version !== undefined && options.version !== revision.version) {
      throw new ApiError(409, 'STALE_VERSION', `The revision changed since version ${options.version} (now ${revision.version}); review it again`);
    }
    const changes = revision.changes as UpdateAppInput;
    // The audit row keeps the fields as they were, so an applied revision can be traced back.
    const before = {
      revisionId: revision.id,
      revisionVersion: revision.version,
      appVersion: locked.version,
      ...Object.fromEntries(Object.keys(changes).map((field) => [field, locked[field as keyof typeof locked] ?? null])),
    };
    if (decision === 'approve') {
      const { assetsChanged, categoryChanged } = await applyAppChanges(tx, locked, changes);
      assertCompleteListing(locked);
      // The revision's images, as its reviewer saw them; the check that follows drops the old ones.
      await publishReviewedAssets(tx, locked);
      if (assetsChanged) await enqueueAssetChecks(jobs, tx, locked.id);
      if (categoryChanged && locked.status === 'APPROVED') await enqueueCategoryCounts(jobs, tx);
    } else {
      revision.rejectionReason = reason;
    }
    revision.status = decision === 'approve' ? 'APPROVED' : 'REJECTED';
    revision.decidedBy = options.actor.label;
    revision.decidedAt = new Date();
    await notifyRevisionDecision(jobs, tx, revision.id, decision === 'approve' ? 'approved' : 'rejected');
    await emitAppEvent(jobs, tx, decision === 'approve' ? 'revision.approved' : 'revision.rejected', locked.id, {
      revision: {
        id: revision.id,
        version: revision.version,
        status: revision.status,
        changes,
        rejectionReason: revision.rejectionReason ?? null,
        decidedAt: revision.decidedAt?.toISOString() ?? null,
      },
    });
    recordTransition(tx, locked, { actor: options.actor.label, action: `revision.${decision}`, from: locked.status, reason });
    recordAudit(tx, options.actor, {
      action: `app.revision.${decision}`,
      subjectType: 'app',
      subjectId: locked.id,
      before,
      after: decision === 'approve' ? { ...changes, appVersion: locked.version, ...overridden(options) } : { revisionStatus: revision.status },
      reason,
    });
    if (decision === 'approve') await bumpCatalogueVersion(tx);
    return locked;
  });
  return toOwnerView(em, app);
}
