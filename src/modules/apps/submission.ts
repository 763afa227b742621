import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound, type FieldError } from '../../http/problem.ts';
import { APP_TRANSITIONS, nextStatus, type AppAction } from './app-state.ts';
import { App, type AppStatus } from './app.entity.ts';
import { recordTransition } from './app-history.ts';
import { lockOwnApp } from './app-locks.ts';
import { MAX_SCREENSHOTS, MIN_SCREENSHOTS_TO_SUBMIT, type OwnerAppView } from './apps.model.ts';
import { toOwnerView } from './owner-views.ts';
import type { AppServiceDeps } from './apps.service.ts';
import { emitAppEvent } from '../webhooks/webhook-events.ts';

/**
 * The submit gate: a verified developer and a complete listing (logo, 2–6 screenshots).
 * Drafts may be incomplete; `preflight` reports the same checklist without submitting.
 */
const developerActor = (developerId: string) => `developer:${developerId}`;

async function developerStatus(em: EntityManager, developerId: string): Promise<string | undefined> {
  const rows = await em.execute<{ status: string }[]>('select status from developers where id = ?', [developerId]);
  return rows[0]?.status;
}

/** What a listing lacks before it can be submitted (drafts may be incomplete). */
function missingForSubmission(app: App): FieldError[] {
  const errors: FieldError[] = [];
  if (!app.logoUrl) errors.push({ path: 'logoUrl', message: 'a logo is required to submit' });
  const count = app.screenshots.length;
  if (count < MIN_SCREENSHOTS_TO_SUBMIT || count > MAX_SCREENSHOTS) {
    errors.push({
      path: 'screenshots',
      message: `${MIN_SCREENSHOTS_TO_SUBMIT} to ${MAX_SCREENSHOTS} screenshots are required to submit (the app has ${count})`,
    });
  }
  return errors;
}

const notVerified = () =>
  new ApiError(403, 'DEVELOPER_NOT_VERIFIED', 'Apps can be submitted once an administrator has verified your developer account');

/** DRAFT or REJECTED → PENDING: queued for review. Needs a verified developer and a complete listing. */
export async function submitApp({ em, jobs }: AppServiceDeps, developerId: string, appId: string): Promise<OwnerAppView> {
  const action: AppAction = 'submit';
  const app = await em.transactional(async (tx) => {
    const locked = await lockOwnApp(tx, developerId, appId);
    const to = nextStatus(action, locked.status);
    if ((await developerStatus(tx, developerId)) !== 'VERIFIED') throw notVerified();
    const missing = missingForSubmission(locked);
    if (missing.length > 0) {
      throw new ApiError(400, 'SUBMISSION_INCOMPLETE', 'The listing is incomplete; see errors for what is missing', missing);
    }
    const from = locked.status;
    locked.status = to;
    locked.submittedAt = new Date();
    locked.rejectionReason = null;
    recordTransition(tx, locked, { actor: developerActor(developerId), action, from });
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
  if ((await developerStatus(em, developerId)) !== 'VERIFIED') {
    errors.push({ path: 'developer', message: 'your developer account must be verified by an administrator' });
  }
  errors.push(...missingForSubmission(app));
  return { ready: errors.length === 0, errors };
}
