import { t, type Static } from 'elysia';
import { Value } from '@sinclair/typebox/value';
import { LockMode } from '@mikro-orm/postgresql';
import { ApiError, notFound, validationFailed } from '../../http/problem.ts';
import { describeValidationErrors } from '../../http/validation-messages.ts';
import { emitAppEvent } from '../webhooks/webhook-events.ts';
import { bumpCatalogueVersion } from '../catalogue/catalogue-version.ts';
import { publishReviewedAssets } from '../assets/asset-publication.ts';
import { assertCompleteListing } from './completeness.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import { notifyListingEdited } from '../notifications/notifications.service.ts';
import { App } from './app.entity.ts';
import { applyAppChanges, assertListingUrls } from './app-changes.ts';
import { recordTransition } from './app-history.ts';
import { REVISABLE_STATUSES } from './app-state.ts';
import { UpdateAppBody, type OwnerAppView } from './apps.model.ts';
import { enqueueAssetChecks } from '../assets/asset-checks.service.ts';
import type { AppServiceDeps } from './apps.service.ts';
import { listingOf } from './listing-fields.ts';
import { toOwnerView } from './owner-views.ts';

/**
 * Support edits (D055: minor changes such as URLs and typos, made by support as an
 * administrator edit): text and URLs of an approved (or suspended) listing changed in place,
 * under the same rules as a developer's edit, never `oauthClientId`. The audit log keeps each
 * field before and after, and the developer is e-mailed the list of changes.
 */
export const SUPPORT_EDITABLE_FIELDS = [
  'name',
  'description',
  'longDescription',
  'logoUrl',
  'bannerUrl',
  'websiteUrl',
  'supportUrl',
  'privacyPolicyUrl',
  'termsOfServiceUrl',
] as const;

export const SupportEditChanges = t.Object(
  Object.fromEntries(SUPPORT_EDITABLE_FIELDS.map((field) => [field, UpdateAppBody.properties[field]])) as Pick<
    (typeof UpdateAppBody)['properties'],
    (typeof SUPPORT_EDITABLE_FIELDS)[number]
  >,
  { additionalProperties: false },
);
export type SupportEditChanges = Static<typeof SupportEditChanges>;

function validated(changes: Record<string, unknown>): SupportEditChanges {
  if (Value.Check(SupportEditChanges, changes)) return changes;
  throw validationFailed('The edit is invalid', describeValidationErrors([...Value.Errors(SupportEditChanges, changes)], 'body'));
}

export async function supportEditApp(
  { em, jobs }: AppServiceDeps,
  appId: string,
  input: { changes: Record<string, unknown>; version: number; note?: string | null },
  actor: Actor,
): Promise<{ app: OwnerAppView; changedFields: string[] }> {
  const changes = validated(input.changes);
  const note = input.note?.trim() || null;
  const { app, changedFields } = await em.transactional(async (tx) => {
    const locked = await tx.findOne(App, { id: appId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!locked) throw notFound('App');
    if (!REVISABLE_STATUSES.includes(locked.status)) {
      throw new ApiError(409, 'INVALID_STATE_TRANSITION', `Support edits are for approved listings; this app is ${locked.status}`);
    }
    if (input.version !== locked.version) {
      throw new ApiError(
        409,
        'STALE_VERSION',
        `The listing changed since version ${input.version} (now ${locked.version}); edit the current version`,
      );
    }
    const current = listingOf(locked);
    const effective = Object.fromEntries(
      Object.entries(changes).filter(([field, value]) => value !== undefined && (current[field as keyof typeof current] ?? null) !== value),
    ) as SupportEditChanges;
    const fields = Object.keys(effective);
    if (fields.length === 0) throw validationFailed('Nothing to change: every field has the value it already had');
    assertListingUrls(locked.environment, effective);
    const before = Object.fromEntries(fields.map((field) => [field, current[field as keyof typeof current] ?? null]));
    const { assetsChanged } = await applyAppChanges(tx, locked, effective);
    // A live listing stays complete, whoever edits it.
    assertCompleteListing(locked);
    if (assetsChanged) {
      await enqueueAssetChecks(jobs, tx, locked.id);
      // Nobody reviewed the new image's bytes: it is shown from its own URL until the next approval.
      await publishReviewedAssets(tx, locked);
    }
    recordTransition(tx, locked, { actor: actor.label, action: 'support-edit', from: locked.status, reason: note });
    const entry = recordAudit(tx, actor, {
      action: 'app.support-edit',
      subjectType: 'app',
      subjectId: locked.id,
      before: { ...before, version: locked.version - 1 },
      after: { ...effective, version: locked.version },
      reason: note,
    });
    await tx.flush(); // the audit row's id names the e-mail
    await notifyListingEdited(jobs, tx, locked.id, entry.id);
    await emitAppEvent(jobs, tx, 'app.edited_by_support', locked.id, { changedFields: fields });
    // The live listing changed: every process's cached public answers must go.
    await bumpCatalogueVersion(tx);
    return { app: locked, changedFields: fields };
  });
  return { app: await toOwnerView(em, app), changedFields };
}
