import type { EntityManager } from '@mikro-orm/postgresql';
import type { FieldError } from '../../http/problem.ts';
import { Developer, type DeveloperStatus } from '../developers/developer.entity.ts';
import { assertVerified } from '../developers/verification.ts';
import { APP_TRANSITIONS, nextStatus, type AppAction } from './app-state.ts';
import type { AppStatus } from './app.entity.ts';
import { recordTransition } from './app-history.ts';
import { authorizeApp, lockAppFor, type Caller } from '../teams/access.ts';
import type { OwnerAppView, SubmittedAppView } from './apps.model.ts';
import { listedAssets, sameAsset } from '../assets/listed-assets.ts';
import { assertSubmittable, missingForSubmission } from './completeness.ts';
import { toOwnerView } from './owner-views.ts';
import { refreshAssetChecks } from '../assets/asset-checks.service.ts';
import type { AppServiceDeps } from './apps.service.ts';
import { emitAppEvent } from '../webhooks/webhook-events.ts';

/**
 * The submit gate: a verified developer and a complete listing (`completeness.ts`).
 * Drafts may be incomplete; `preflight` reports the same checklist without submitting.
 */
const developerActor = (developerId: string) => `developer:${developerId}`;

async function developerStatus(em: EntityManager, developerId: string): Promise<DeveloperStatus | undefined> {
  const developer = await em.findOne(Developer, { id: developerId }, { fields: ['status'], disableIdentityMap: true });
  return developer?.status;
}

/**
 * What the asset checks say of the images the listing shows: not checked yet, not fetched, or of
 * the wrong format or size, each at the path of its field. Advisory: submission never waits for
 * the checks, so a developer learns here what a reviewer will see.
 */
export function assetWarnings(view: Pick<OwnerAppView, 'logoUrl' | 'bannerUrl' | 'screenshots' | 'assetChecks'>): FieldError[] {
  return listedAssets(view).flatMap((asset) => {
    const path = asset.field.startsWith('screenshots[') ? `${asset.field}.url` : asset.field;
    const check = view.assetChecks.find((candidate) => sameAsset(candidate, asset));
    if (!check) return [{ path, message: 'not checked yet: the image is fetched and checked in the background' }];
    return check.problems.map((message) => ({ path, message }));
  });
}

/**
 * DRAFT or REJECTED → PENDING: queued for review, at a new version. Needs a verified developer and a complete
 * listing. `warnings` are the asset checks as they stood when it was submitted (submitting then
 * has every image checked again).
 */
export async function submitApp({ em, jobs }: AppServiceDeps, caller: Caller, appId: string): Promise<SubmittedAppView> {
  const action: AppAction = 'submit';
  const { developerId } = caller;
  let warnings: FieldError[] = [];
  const app = await em.transactional(async (tx) => {
    const locked = await lockAppFor(tx, caller, appId, 'submit');
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
    warnings = assetWarnings(await toOwnerView(tx, locked));
    await refreshAssetChecks(jobs, tx, locked.id);
    await emitAppEvent(jobs, tx, 'app.submitted', locked.id);
    return locked;
  });
  return { ...(await toOwnerView(em, app)), warnings };
}

export interface PreflightResult {
  ready: boolean;
  errors: FieldError[];
  warnings: FieldError[];
}

/** The submission checklist without submitting: `ready` is whether submit would succeed now. */
export async function preflight(em: EntityManager, caller: Caller, appId: string): Promise<PreflightResult> {
  const app = await authorizeApp(em, caller, appId, 'read');
  const errors: FieldError[] = [];
  if (!(APP_TRANSITIONS.submit.from as readonly AppStatus[]).includes(app.status)) {
    errors.push({ path: 'status', message: `an app that is ${app.status} cannot be submitted` });
  }
  const status = await developerStatus(em, caller.developerId);
  if (status === 'SUSPENDED') errors.push({ path: 'developer', message: 'your developer account is suspended' });
  else if (status !== 'VERIFIED') errors.push({ path: 'developer', message: 'your developer account must be verified by an administrator' });
  errors.push(...missingForSubmission(app));
  return { ready: errors.length === 0, errors, warnings: assetWarnings(await toOwnerView(em, app)) };
}
