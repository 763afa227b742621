import { LISTING_FIELDS } from './manifest.ts';

/** Fields PUT and revisions cannot change. */
const FIXED_FIELDS = new Set(['environment']);

/** Screenshots as the service keeps them: a missing `order` is the position, missing captions are null, sorted. */
function normaliseScreenshots(value: unknown): unknown {
  if (!Array.isArray(value)) return [];
  return value
    .map((shot: { url: string; caption?: string | null; order?: number }, index) => ({
      url: shot.url,
      caption: shot.caption ?? null,
      order: shot.order ?? index,
    }))
    .sort((a, b) => a.order - b.order);
}

/** Permissions as the manifest states them: the service adds each scope's label and keeps the platform's order. */
function normalisePermissions(value: unknown): unknown {
  if (!Array.isArray(value) || value.length === 0) return null;
  return value
    .map((permission: { scope: string; reason: string }) => ({ scope: permission.scope, reason: permission.reason }))
    .sort((a, b) => a.scope.localeCompare(b.scope));
}

/** Absent, null and empty lists all mean "not set". */
function normalise(field: string, value: unknown): unknown {
  if (field === 'screenshots') return normaliseScreenshots(value);
  if (field === 'permissions') return normalisePermissions(value);
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return null;
  return value;
}

/** JSON with object keys sorted, so two values compare equal whatever order their keys came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );
}

/** What a field is set to when the manifest leaves it out: cleared (screenshots as an empty list). */
const cleared = (field: string) => (field === 'screenshots' ? [] : null);

/**
 * The changes that make `current` equal the manifest's listing, as PUT and revisions take them:
 * only the fields that differ, a field the manifest leaves out cleared.
 */
export function listingChanges(current: Record<string, unknown>, listing: Record<string, unknown>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const field of LISTING_FIELDS) {
    if (FIXED_FIELDS.has(field)) continue;
    const wanted = field in listing ? listing[field] : cleared(field);
    if (canonical(normalise(field, wanted)) !== canonical(normalise(field, current[field]))) changes[field] = wanted;
  }
  return changes;
}
