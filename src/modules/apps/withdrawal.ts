import { notFound } from '../../http/problem.ts';
import { nextStatus, type AppAction } from './app-state.ts';
import { AppRevision } from './app-revision.entity.ts';
import { recordTransition } from './app-history.ts';
import { lockAppFor, type Caller } from '../teams/access.ts';
import type { OwnerAppView } from './apps.model.ts';
import type { AppServiceDeps } from './apps.service.ts';
import { toOwnerView } from './owner-views.ts';
import { claimSubject, releaseClaim } from '../listing-review/review-claims.ts';
import { emitAppEvent } from '../webhooks/webhook-events.ts';

/**
 * A developer takes back what waits for review: a submission (PENDING → DRAFT) or the pending
 * revision of an approved app. Either leaves the review queue at once, with any reviewer's claim
 * on it, so nobody reviews what its developer no longer asks for.
 */
const developerActor = (developerId: string) => `developer:${developerId}`;

/** PENDING → DRAFT: out of the review queue; the listing is kept as it was and may be edited and submitted again. */
export async function withdrawSubmission({ em, jobs }: AppServiceDeps, caller: Caller, appId: string): Promise<OwnerAppView> {
  const action: AppAction = 'withdraw';
  const { developerId } = caller;
  const app = await em.transactional(async (tx) => {
    const locked = await lockAppFor(tx, caller, appId, 'submit');
    const from = locked.status;
    locked.status = nextStatus(action, from);
    locked.submittedAt = null;
    recordTransition(tx, locked, { actor: developerActor(developerId), action, from });
    await releaseClaim(tx, claimSubject('app', locked.id));
    await emitAppEvent(jobs, tx, 'app.withdrawn', locked.id);
    return locked;
  });
  return toOwnerView(em, app);
}

/** Withdraws the app's pending revision (404 when there is none); the live listing is unchanged. */
export async function withdrawRevision({ em, jobs }: AppServiceDeps, caller: Caller, appId: string): Promise<OwnerAppView> {
  const { developerId } = caller;
  const app = await em.transactional(async (tx) => {
    // The app row lock serialises this with a proposal being merged and with a reviewer's decision.
    const locked = await lockAppFor(tx, caller, appId, 'revise');
    const revision = await tx.findOne(AppRevision, { appId: locked.id, status: 'PENDING' });
    if (!revision) throw notFound('Pending revision');
    revision.status = 'WITHDRAWN';
    revision.decidedBy = developerActor(developerId);
    revision.decidedAt = new Date();
    recordTransition(tx, locked, { actor: developerActor(developerId), action: 'revision.withdraw', from: locked.status });
    await releaseClaim(tx, claimSubject('revision', revision.id));
    await emitAppEvent(jobs, tx, 'revision.withdrawn', locked.id, {
      revision: {
        id: revision.id,
        version: revision.version,
        status: revision.status,
        changes: revision.changes,
        withdrawnAt: revision.decidedAt.toISOString(),
      },
    });
    return locked;
  });
  return toOwnerView(em, app);
}
