import type { EntityManager } from '@mikro-orm/postgresql';
import { executeNamed } from '../../lib/named-sql.ts';

/**
 * Public addresses of apps. A slug that was ever public stays in `app_slugs` forever, so an old
 * link can never start pointing at another app. A slug that never was (a draft's, until its
 * approval) is released when the draft is renamed or deleted: nobody can hold `zoom` or `slack`
 * by cycling a draft through popular names.
 */
export const MAX_SLUG_LENGTH = 60;

/** Words the public routes use as path segments (`/api/apps/featured/list`, `/api/apps/categories/list`). */
export const RESERVED_SLUGS: readonly string[] = ['featured', 'categories'];

const CANDIDATES_PER_QUERY = 20;

/** Lowercase kebab case: accents stripped, anything else non-alphanumeric becomes one '-'. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, '');
  return slug || 'app';
}

/** `base`, `base-2`, `base-3` …, each cut so the suffix still fits in MAX_SLUG_LENGTH. */
function candidate(base: string, n: number): string {
  if (n === 1) return base;
  const suffix = `-${n}`;
  return `${base.slice(0, MAX_SLUG_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/**
 * Reserves the first free slug for `name` (or one this app already holds) and returns it. The insert itself decides between
 * concurrent callers (primary key, `on conflict do nothing`), so two apps never share a slug.
 * `appId` is null while the app row does not exist yet; `attachSlug` links it after the insert.
 */
export async function reserveSlug(em: EntityManager, name: string, appId: string | null): Promise<string> {
  const base = slugify(name);
  for (let first = 1; ; first += CANDIDATES_PER_QUERY) {
    const candidates = Array.from({ length: CANDIDATES_PER_QUERY }, (_, i) => candidate(base, first + i)).filter(
      (slug) => !RESERVED_SLUGS.includes(slug),
    );
    // Atomic reservation (raw SQL, D106): candidates read, then claimed with insert-or-nothing below.
    const taken = await executeNamed<{ slug: string; app_id: string | null }>(
      em,
      'select slug, app_id from app_slugs where slug = any(:candidates::text[])',
      { candidates },
    );
    // A slug this very app held before (renamed back) is its own again, not someone else's.
    const own = candidates.find((slug) => taken.some((row) => row.slug === slug && appId !== null && row.app_id === appId));
    if (own) return own;
    const takenSet = new Set(taken.map((row) => row.slug));
    for (const slug of candidates.filter((c) => !takenSet.has(c))) {
      const inserted = await executeNamed<{ slug: string }>(
        em,
        'insert into app_slugs (slug, app_id) values (:slug, :appId) on conflict (slug) do nothing returning slug',
        { slug, appId },
      );
      if (inserted.length > 0) return slug;
    }
  }
}

/** Links a slug reserved before its app row existed to that app. */
export async function attachSlug(em: EntityManager, slug: string, appId: string): Promise<void> {
  // Part of the reservation protocol (raw SQL, D106): app_slugs is written only here.
  await executeNamed(em, 'update app_slugs set app_id = :appId where slug = :slug', { appId, slug });
}

/** Gives back every slug a never-approved app holds except `keep` (none when the app is deleted). */
export async function releaseDraftSlugs(em: EntityManager, appId: string, keep: string | null): Promise<void> {
  await executeNamed(
    em,
    `delete from app_slugs s using apps a
     where s.app_id = a.id and a.id = :appId and a.first_approved_at is null and s.slug is distinct from :keep`,
    { appId, keep },
  );
}
