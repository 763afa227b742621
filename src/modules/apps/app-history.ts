import type { EntityManager } from '@mikro-orm/postgresql';
import { AppTransition } from './app-transition.entity.ts';
import type { App, AppStatus } from './app.entity.ts';
import { listingOf } from './listing-fields.ts';

/**
 * One row in the app's history per status change (and per featuring or revision decision). A
 * rejection keeps the listing it rejected, so a resubmission can be reviewed as a diff.
 */
export function recordTransition(
  tx: EntityManager,
  app: App,
  entry: { actor: string; action: string; from: AppStatus; reason?: string | null },
): void {
  tx.create(AppTransition, {
    appId: app.id,
    actor: entry.actor,
    action: entry.action,
    fromStatus: entry.from,
    toStatus: app.status,
    version: app.version,
    reason: entry.reason ?? null,
    listing: entry.action === 'reject' ? listingOf(app) : null,
  });
}
