import type { Client, OwnerApp } from './client.ts';
import { EXIT, PublishError } from './errors.ts';
import { listingChanges } from './listing-diff.ts';
import type { Manifest } from './manifest.ts';

export type Action = 'created' | 'updated' | 'up-to-date' | 'revision-opened' | 'revision-extended' | 'status';

/** What a command did, as `--json` prints it and the human output says it. */
export interface Outcome {
  action: Action;
  app: OwnerApp;
  changedFields: string[];
  submitted: boolean;
  warnings: { path: string; message: string }[];
  decision?: 'approved' | 'rejected' | 'withdrawn' | 'pending';
  reasons?: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isLive = (app: OwnerApp) => app.status === 'APPROVED' || app.status === 'SUSPENDED';
const notReachable = (ref: string) =>
  new PublishError(EXIT.invalid, `app "${ref}" was not found among the apps this key reaches: check "app" in the manifest, or the key`);

async function allApps(client: Client): Promise<OwnerApp[]> {
  const apps: OwnerApp[] = [];
  for (let page = 1; ; page += 1) {
    const result = await client.listApps(page);
    apps.push(...(result.data as OwnerApp[]));
    if (page >= Number(result.pagination.totalPages)) return apps;
  }
}

/** The app a manifest publishes: the key's own app, else `app` (id or slug), else the one app with its exact name. */
export async function findApp(client: Client, manifest: Manifest, boundAppId?: string): Promise<OwnerApp | null> {
  if (boundAppId) {
    const app = await client.getApp(boundAppId);
    if (manifest.app && manifest.app !== app.id && manifest.app !== app.slug) {
      throw new PublishError(EXIT.invalid, `this CI identity publishes ${app.slug} (${app.id}), but the manifest names app "${manifest.app}"`);
    }
    return app;
  }
  if (manifest.app && UUID.test(manifest.app)) {
    try {
      return await client.getApp(manifest.app);
    } catch (error) {
      if (error instanceof PublishError && error.details.status === 404) throw notReachable(manifest.app);
      throw error;
    }
  }
  const apps = await allApps(client);
  if (manifest.app) {
    const bySlug = apps.find((app) => app.slug === manifest.app);
    if (!bySlug) throw notReachable(manifest.app);
    return bySlug;
  }
  const named = apps.filter((app) => app.name === manifest.listing.name);
  if (named.length > 1) {
    throw new PublishError(
      EXIT.invalid,
      `${named.length} apps are named "${String(manifest.listing.name)}": put the one to publish in the manifest as "app" (${named.map((app) => app.id).join(', ')})`,
    );
  }
  return named[0] ?? null;
}

/** The listing as it will be once what is pending is approved: the live one with the pending revision applied. */
const proposed = (app: OwnerApp): Record<string, unknown> => ({ ...app, ...(app.pendingRevision?.changes ?? {}) });

/**
 * Makes the service's listing equal the manifest: creates the app, updates a DRAFT, PENDING or
 * REJECTED one with the fields that differ, or opens (or extends) a revision of a live one with
 * exactly those fields; nothing at all when nothing differs.
 */
export async function publishListing(client: Client, manifest: Manifest, options: { submit: boolean; boundAppId?: string }): Promise<Outcome> {
  const found = await findApp(client, manifest, options.boundAppId);
  let outcome: Outcome;
  if (!found) {
    const app = await client.createApp({ ...manifest.listing, ...(manifest.teamId ? { teamId: manifest.teamId } : {}) });
    outcome = { action: 'created', app, changedFields: Object.keys(manifest.listing), submitted: false, warnings: [] };
  } else {
    if (manifest.listing.environment !== found.environment) {
      throw new PublishError(
        EXIT.invalid,
        `environment is fixed once an app exists: ${found.slug} is ${found.environment}, the manifest says ${String(manifest.listing.environment)}`,
      );
    }
    const live = isLive(found);
    const changes = listingChanges(live ? proposed(found) : found, manifest.listing);
    const changedFields = Object.keys(changes);
    if (changedFields.length === 0) {
      outcome = { action: 'up-to-date', app: found, changedFields, submitted: false, warnings: [] };
    } else if (live) {
      const app = await client.openRevision(found.id, changes);
      outcome = { action: found.pendingRevision ? 'revision-extended' : 'revision-opened', app, changedFields, submitted: false, warnings: [] };
    } else {
      outcome = await updateOrRevise(client, found, manifest.listing);
    }
  }
  if (options.submit && (outcome.app.status === 'DRAFT' || outcome.app.status === 'REJECTED')) {
    const submitted = await client.submit(outcome.app.id);
    outcome = { ...outcome, app: submitted, submitted: true, warnings: warningsOf(submitted) };
  }
  return outcome;
}

/** An app approved between reading and writing it answers APP_NOT_EDITABLE: the change then goes through a revision. */
async function updateOrRevise(client: Client, app: OwnerApp, listing: Record<string, unknown>): Promise<Outcome> {
  const changes = listingChanges(app, listing);
  try {
    return { action: 'updated', app: await client.updateApp(app.id, changes), changedFields: Object.keys(changes), submitted: false, warnings: [] };
  } catch (error) {
    if (!(error instanceof PublishError) || error.details.code !== 'APP_NOT_EDITABLE') throw error;
    const live = await client.getApp(app.id);
    const revision = listingChanges(proposed(live), listing);
    const action = live.pendingRevision ? 'revision-extended' : 'revision-opened';
    return { action, app: await client.openRevision(app.id, revision), changedFields: Object.keys(revision), submitted: false, warnings: [] };
  }
}

/** The asset warnings a submit response may carry (the checks are advisory: submission never waits for them). */
function warningsOf(app: OwnerApp): Outcome['warnings'] {
  const warnings = (app as { warnings?: unknown }).warnings;
  return Array.isArray(warnings) ? (warnings as Outcome['warnings']) : [];
}

const MAX_POLL_MS = 15_000;

/**
 * Polls until what is waiting for review is decided: the app's submission, else its pending
 * revision. Nothing waiting is decided already. Times out with exit code 3.
 */
export async function waitForDecision(
  client: Client,
  start: OwnerApp,
  minutes: number,
  sleep = Bun.sleep,
): Promise<Pick<Outcome, 'app' | 'decision' | 'reasons'>> {
  const deadline = Date.now() + minutes * 60_000;
  const revisionId = start.status === 'PENDING' ? null : (start.pendingRevision?.id ?? null);
  let app = start;
  for (let delay = 1_000; ; delay = Math.min(delay * 1.5, MAX_POLL_MS)) {
    if (app.status !== 'PENDING' && revisionId === null) {
      if (app.status === 'APPROVED') return { app, decision: 'approved' };
      if (app.status === 'REJECTED') return { app, decision: 'rejected', reasons: app.rejectionReason };
      if (start.status === 'PENDING') return { app, decision: 'withdrawn' };
      if (app.status === 'SUSPENDED') throw new PublishError(EXIT.invalid, `${app.slug} is suspended by the marketplace's administrators`);
      throw new PublishError(EXIT.usage, `${app.slug} is a ${app.status} with nothing waiting for review: publish with --submit to submit it`);
    }
    if (revisionId !== null && app.pendingRevision?.id !== revisionId) {
      const { data } = await client.listRevisions(app.id);
      const revision = data.find((entry) => entry.id === revisionId);
      if (revision?.status === 'APPROVED') return { app, decision: 'approved' };
      if (revision?.status === 'REJECTED') return { app, decision: 'rejected', reasons: revision.rejectionReason };
      return { app, decision: 'withdrawn' };
    }
    if (Date.now() + delay > deadline) {
      throw new PublishError(EXIT.timeout, `No decision within ${minutes} min: ${app.slug} is still waiting for review`, { decision: 'pending' });
    }
    await sleep(delay);
    app = await client.getApp(app.id);
  }
}
