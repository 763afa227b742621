import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound, type FieldError } from '../../http/problem.ts';
import type { DeveloperStatus } from '../developers/developer.entity.ts';
import { assertVerified } from '../developers/verification.ts';
import { APP_TRANSITIONS, nextStatus, type AppAction } from './app-state.ts';
import { App, type AppStatus } from './app.entity.ts';
import { recordTransition } from './app-history.ts';
import { lockOwnApp } from './app-locks.ts';
import type { OwnerAppView } from './apps.model.ts';
import { assertSubmittable, missingForSubmission } from './completeness.ts';
import { toOwnerView } from './owner-views.ts';
import { refreshAssetChecks } from './asset-checks.service.ts';
import type { AppServiceDeps } from './apps.service.ts';
import { emitAppEvent } from '../webhooks/webhook-events.ts';

/**
 * The submit gate: a verified developer and a complete listing (`completeness.ts`).
 * Drafts may be incomplete; `preflight` reports the same checklist without submitting.
 */
const developerActor = (developerId: string) => `developer:${developerId}`;

async function developerStatus(em: EntityManager, developerId: string): Promise<DeveloperStatus | undefined> {
  const rows = await em.execute<{ status: DeveloperStatus }[]>('select status from developers where id = ?', [developerId]);
  return rows[0]?.status;
}

/** DRAFT or REJECTED → PENDING: queued for review, at a new version. Needs a verified developer and a complete listing. */
export async function submitApp({ em, jobs }: AppServiceDeps, developerId: string, appId: string): Promise<OwnerAppView> {
  const action: AppAction = 'submit';
  const app = await em.transactional(async (tx) => {
    const locked = await lockOwnApp(tx, developerId, appId);
    const to = nextStatus(action, locked.status);
    assertVerified(await developerStatus(tx, developerId), { what: 'Apps', done: 'submitted' });
    assertSubmittable(locked);
    const from = locked.status;
    locked.status = to;
    // Every submission is a new thing to review, even of an unedited listing (its images are fetched
    // again): a decision naming the version of an earlier submission is stale.
    locked.version += 1;
    locked.submittedAt = new Date();
    locked.rejectionReason = null;
    recordTransition(tx, locked, { actor: developerActor(developerId), action, from });
    await refreshAssetChecks(jobs, tx, locked.id);
    await emitAppEvent(jobs, tx, 'app.submitted', locked.id);
    return locked;
  });
  return toOwnerView(em, app);
}

export interface PreflightResult {
  ready: boolean;
  errors: FieldError[];
}

/** The submission checklist without submitting: `ready` is whether submit would succeed now. */
export async function preflight(em: EntityManager, developerId: string, appId: string): Promise<PreflightResult> {
  const app = await em.findOne(App, { id: appId, developer: developerId });
  if (!app) throw notFound('App');
  const errors: FieldError[] = [];
  if (!(APP_TRANSITIONS.submit.from as readonly AppStatus[]).includes(app.status)) {
    errors.push({ path: 'status', message: `an app that is ${app.status} cannot be submitted` });
  }
  const status = await developerStatus(em, developerId);
  if (status === 'SUSPENDED') errors.push({ path: 'developer', message: 'your developer account is suspended' });
  else if (status !== 'VERIFIED') errors.push({ path: 'developer', message: 'your developer account must be verified by an administrator' });
  errors.push(...missingForSubmission(app));
  return { ready: errors.length === 0, errors };
}
