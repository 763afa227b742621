import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '../../lib/job-queue.ts';
import { safeFetch, SafeFetchError } from '../../lib/safe-fetch.ts';
import { assetKindOf, assetProblems, readImageFacts } from './asset-rules.ts';
import type { Screenshot } from './app.entity.ts';

/**
 * Advisory asset checks: fetch each image a listing names (SSRF-guarded), read its format and
 * dimensions from the bytes, and store the result for the owner and reviewers. Submission and
 * approval never wait for these.
 */
export const ASSET_CHECKS_QUEUE = 'apps.asset-checks';

/** Call inside the transaction that changed an app's logo, banner or screenshots. */
export const enqueueAssetChecks = (jobs: JobQueue, em: EntityManager, appId: string) =>
  jobs.send(em, ASSET_CHECKS_QUEUE, { appId }, { singletonKey: appId });

const FETCH_LIMITS = { maxBytes: 10 * 1024 * 1024, timeoutMs: 5_000, maxRedirects: 3 };

interface ListedAsset {
  /** 'logoUrl', 'bannerUrl' or 'screenshots[i]' (i in display order). */
  field: string;
  url: string;
}

interface AssetCheckResult extends ListedAsset {
  ok: boolean;
  format: string | null;
  width: number | null;
  height: number | null;
  problems: string[];
}

/** The images an app lists now, or null when the app no longer exists. */
async function listedAssets(em: EntityManager, appId: string): Promise<ListedAsset[] | null> {
  const [app] = await em.execute<{ logo_url: string | null; banner_url: string | null; screenshots: Screenshot[] }[]>(
    `select logo_url, banner_url, screenshots from apps where id = ?`,
    [appId],
  );
  if (!app) return null;
  const assets: ListedAsset[] = [];
  if (app.logo_url) assets.push({ field: 'logoUrl', url: app.logo_url });
  if (app.banner_url) assets.push({ field: 'bannerUrl', url: app.banner_url });
  [...app.screenshots]
    .sort((a, b) => a.order - b.order)
    .forEach((screenshot, index) => assets.push({ field: `screenshots[${index}]`, url: screenshot.url }));
  return assets;
}

async function checkAsset({ field, url }: ListedAsset, allowPrivate: boolean): Promise<AssetCheckResult> {
  const failed = (problem: string): AssetCheckResult => ({ field, url, ok: false, format: null, width: null, height: null, problems: [problem] });
  let bytes: Uint8Array;
  try {
    ({ bytes } = await safeFetch(url, { ...FETCH_LIMITS, allowPrivate, enough: (head) => readImageFacts(head) !== null }));
  } catch (error) {
    if (error instanceof SafeFetchError) return failed(`could not fetch: ${error.reason}`);
    throw error;
  }
  const image = readImageFacts(bytes);
  if (!image) return failed('not a readable image (PNG or JPG expected)');
  const problems = assetProblems(assetKindOf(field), image);
  return { field, url, ok: problems.length === 0, ...image, problems };
}

/**
 * Checks every image the app lists and replaces its stored results. Results are written only
 * for images the app still lists with the same URL (an edit during the fetch enqueues its own
 * check); a deleted app is left alone.
 */
export async function runAssetChecks(em: EntityManager, appId: string, allowPrivate: boolean): Promise<void> {
  const listed = await listedAssets(em, appId);
  if (!listed) return;
  const results = await Promise.all(listed.map((asset) => checkAsset(asset, allowPrivate)));
  await em.transactional(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtext('asset-checks'), hashtext(?))`, [appId]);
    const current = await listedAssets(tx, appId);
    if (!current) return;
    const fresh = results.filter((result) => current.some((asset) => asset.field === result.field && asset.url === result.url));
    await tx.execute(
      `delete from asset_checks c
       where c.app_id = ?
         and not exists (select 1 from jsonb_to_recordset(cast(? as jsonb)) as l(field text, url text)
                         where l.field = c.field and l.url = c.url)`,
      [appId, JSON.stringify(current)],
    );
    if (fresh.length === 0) return;
    await tx.execute(
      `insert into asset_checks (app_id, field, url, ok, format, width, height, problems, checked_at)
       select ?, r.field, r.url, r.ok, r.format, r.width, r.height, r.problems, now()
       from jsonb_to_recordset(cast(? as jsonb))
         as r(field text, url text, ok boolean, format text, width integer, height integer, problems jsonb)
       on conflict (app_id, field) do update set
         url = excluded.url, ok = excluded.ok, format = excluded.format, width = excluded.width,
         height = excluded.height, problems = excluded.problems, checked_at = excluded.checked_at`,
      [appId, JSON.stringify(fresh)],
    );
  });
}

