import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { queueHandle, type JobQueue } from '../../lib/job-queue.ts';
import { executeNamed } from '../../lib/named-sql.ts';
import { safeFetch, SafeFetchError } from '../../lib/safe-fetch.ts';
import { isMirroredFormat } from './asset-files.ts';
import { storeAsset } from './asset-store.ts';
import { App, type AppStatus } from '../apps/app.entity.ts';
import { AppRevision } from '../apps/app-revision.entity.ts';
import { AssetCheck } from './asset-check.entity.ts';
import type { UpdateAppInput } from '../apps/apps.model.ts';
import { assetKindOf, assetProblems, MAX_ASSET_BYTES, pixelBoundProblem, readImageFacts, tooLargeProblem } from './asset-rules.ts';
import { listedAssets, proposedAssets, sameAsset, type ListedAsset } from './listed-assets.ts';
import { claimRevisionVersion } from '../apps/revision-versions.ts';

/**
 * Advisory asset checks: fetch each image a listing (or its pending revision) names, SSRF-guarded,
 * read its format and dimensions from the bytes, store the bytes in the mirror, and record the
 * verdict for the owner and reviewers. Submission and approval never wait for these.
 *
 * A stored copy is pinned: while the listing names the same URL it is not fetched again, so what
 * a reviewer looked at cannot change under them. Submitting asks for a fresh look (every image is
 * fetched again); an image that could not be stored is tried again on every run. Every new copy
 * moves the version a reviewer's decision must name (`moveReviewedVersions`).
 */
export const assetCheckJobs = queueHandle<{ appId: string }>('apps.asset-checks');
export const ASSET_CHECKS_QUEUE = assetCheckJobs.name;

/**
 * Call inside the transaction that changed an app's (or its pending revision's) logo, banner or
 * screenshots. The job is in its developer's group, which bounds how many workers one developer's
 * checks hold (`jobs/asset-checks.ts`).
 */
export async function enqueueAssetChecks(jobs: JobQueue, em: EntityManager, appId: string): Promise<void> {
  const app = await em.createQueryBuilder(App, 'a').select('a.developer').where({ id: appId }).execute<{ developer: string } | undefined>('get');
  if (!app) return;
  await jobs.send(em, assetCheckJobs, { appId }, { singletonKey: appId, group: { id: app.developer } });
}

/** Call inside the transaction of a submission: the review sees every image as its URL serves it now. */
export async function refreshAssetChecks(jobs: JobQueue, tx: EntityManager, appId: string): Promise<void> {
  await tx.nativeDelete(AssetCheck, { appId });
  await enqueueAssetChecks(jobs, tx, appId);
}

const FETCH_LIMITS = { timeoutMs: 5_000, maxRedirects: 3 };

interface AssetCheckResult extends ListedAsset {
  ok: boolean;
  format: string | null;
  width: number | null;
  height: number | null;
  problems: string[];
  /** The whole image, when it is one the mirror keeps (PNG or JPEG within its caps). */
  bytes: Uint8Array | null;
}

interface WantedAssets {
  /** The images the listing shows now. */
  live: ListedAsset[];
  /** The images it would show once its pending revision is approved; null without one. */
  proposed: ListedAsset[] | null;
  status: AppStatus;
  /** Both, each image once. */
  all: ListedAsset[];
}

/** Every image the app lists now or would list once its pending revision is approved; null when the app is gone. */
async function wantedAssets(em: EntityManager, appId: string): Promise<WantedAssets | null> {
  // Past the identity map: the second read, under the app's row lock, must see what was committed since the first.
  const fresh = { disableIdentityMap: true } as const;
  const [app, revision] = await Promise.all([
    em.findOne(App, { id: appId }, { ...fresh, fields: ['status', 'logoUrl', 'bannerUrl', 'screenshots'] }),
    em.findOne(AppRevision, { appId, status: 'PENDING' }, { ...fresh, fields: ['changes'] }),
  ]);
  if (!app) return null;
  const live = listedAssets(app);
  const proposed = revision ? proposedAssets(app, revision.changes as UpdateAppInput) : null;
  const all = [...live];
  for (const asset of proposed ?? []) {
    if (!all.some((known) => sameAsset(known, asset))) all.push(asset);
  }
  return { live, proposed, status: app.status, all };
}

/**
 * A copy stored now changes what a reviewer sees (an image shown as not stored, or as another
 * copy, until then), and an approval publishes it: the version a decision must name moves on —
 * the app's while it waits for review, its pending revision's when the revision shows the image.
 * Called with the app's row locked, which is how revisions and decisions serialise too.
 */
async function moveReviewedVersions(tx: EntityManager, appId: string, wanted: WantedAssets, copied: ListedAsset[]): Promise<void> {
  const shows = (listed: ListedAsset[] | null) => listed !== null && copied.some((copy) => listed.some((asset) => sameAsset(asset, copy)));
  if (wanted.status === 'PENDING' && shows(wanted.live)) {
    await tx.nativeUpdate(App, { id: appId }, { version: raw('version + 1') });
  }
  if (shows(wanted.proposed)) {
    await tx.nativeUpdate(AppRevision, { appId, status: 'PENDING' }, { version: await claimRevisionVersion(tx, appId) });
  }
}

async function checkAsset({ field, url }: ListedAsset, allowPrivate: boolean): Promise<AssetCheckResult> {
  const failed = (problem: string): AssetCheckResult => ({
    field,
    url,
    ok: false,
    format: null,
    width: null,
    height: null,
    problems: [problem],
    bytes: null,
  });
  const kind = assetKindOf(field);
  const cap = MAX_ASSET_BYTES[kind];
  let fetched: { bytes: Uint8Array; partial: boolean };
  try {
    // Read the whole image up to its cap; past the cap, the first bytes still tell its format and size.
    fetched = await safeFetch(url, {
      ...FETCH_LIMITS,
      maxBytes: cap,
      allowPrivate,
      enough: (head) => head.byteLength >= cap && readImageFacts(head) !== null,
    });
  } catch (error) {
    if (error instanceof SafeFetchError) return failed(error.reason === 'too large' ? tooLargeProblem(kind) : `could not fetch: ${error.reason}`);
    throw error;
  }
  const image = readImageFacts(fetched.bytes);
  if (!image) return failed('not a readable image (PNG or JPG expected)');
  const problems = assetProblems(kind, image);
  const bomb = pixelBoundProblem(image);
  if (bomb) problems.push(bomb);
  if (fetched.partial) problems.push(tooLargeProblem(kind));
  const bytes = !fetched.partial && !bomb && isMirroredFormat(image.format) ? fetched.bytes : null;
  return { field, url, ok: problems.length === 0, ...image, problems, bytes };
}

/**
 * Checks the images the app (and its pending revision) lists that have no stored copy yet, stores
 * their bytes, and writes the verdicts. Rows of images no longer listed are removed; results for
 * images unlisted during the fetch are dropped (that edit enqueued its own check); a deleted app is
 * left alone.
 */
export async function runAssetChecks(em: EntityManager, appId: string, allowPrivate: boolean): Promise<void> {
  const wanted = await wantedAssets(em, appId);
  if (!wanted) return;
  const stored = await em.find(AssetCheck, { appId, copy: { $ne: null } }, { fields: ['field', 'url'], disableIdentityMap: true });
  const toCheck = wanted.all.filter((asset) => !stored.some((copy) => sameAsset(copy, asset)));
  const results = await Promise.all(toCheck.map((asset) => checkAsset(asset, allowPrivate)));
  await em.transactional(async (tx) => {
    // The row first (an approval holds it while it publishes; a new copy moves its version), then the checks of this app.
    // Locks, so SQL (D106): FOR NO KEY UPDATE, which MikroORM's lock modes cannot state, and an advisory lock.
    await executeNamed(tx, 'select 1 from apps where id = :appId for no key update', { appId });
    await executeNamed(tx, `select pg_advisory_xact_lock(hashtext('asset-checks'), hashtext(:appId))`, { appId });
    const current = await wantedAssets(tx, appId);
    if (!current) return;
    const listed = current.all.map(({ field, url }) => ({ field, url }));
    await tx.nativeDelete(AssetCheck, listed.length > 0 ? { appId, $not: { $or: listed } } : { appId });
    const fresh = [];
    for (const { bytes, ...result } of results.filter((result) => current.all.some((asset) => sameAsset(asset, result)))) {
      const format = result.format;
      const copy = bytes && format && isMirroredFormat(format) ? await storeAsset(tx, bytes, format) : null;
      fresh.push({ ...result, sha256: copy?.sha256 ?? null });
    }
    if (fresh.length === 0) return;
    // A stored copy is never replaced: it may be what a reviewer is looking at. One conditional upsert that
    // returns the rows it wrote (so which copies are new), which `em.upsertMany` cannot tell: SQL (D106).
    const written = await executeNamed<ListedAsset & { sha256: string | null }>(
      tx,
      `insert into asset_checks (app_id, field, url, ok, format, width, height, problems, sha256, checked_at)
       select :appId, r.field, r.url, r.ok, r.format, r.width, r.height, r.problems, r.sha256, now()
       from jsonb_to_recordset(cast(:fresh as jsonb))
         as r(field text, url text, ok boolean, format text, width integer, height integer, problems jsonb, sha256 text)
       on conflict (app_id, field, url) do update set
         ok = excluded.ok, format = excluded.format, width = excluded.width, height = excluded.height,
         problems = excluded.problems, sha256 = excluded.sha256, checked_at = excluded.checked_at
       where asset_checks.sha256 is null
       returning field, url, sha256`,
      { appId, fresh: JSON.stringify(fresh) },
    );
    const copied = written.filter((row) => row.sha256 !== null);
    if (copied.length > 0) await moveReviewedVersions(tx, appId, current, copied);
  });
}
