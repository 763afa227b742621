import type { DataHandling, Permission, Screenshot } from './app.entity.ts';
import { describeDataHandling } from './disclosure.ts';
import { LISTING_FIELDS, LISTING_LABELS, type Listing, type ListingField } from './listing-fields.ts';
import type { FieldChange } from '../../../views/admin/listing.ts';
import type { LineChange } from '../../../views/admin/listing.ts';
export type { LineChange } from '../../../views/admin/listing.ts';
export type { FieldChange } from '../../../views/admin/listing.ts';

const MULTI_LINE: readonly ListingField[] = ['longDescription', 'reviewNotes', 'permissions', 'dataHandling'];
/** Past this many lines a side, the diff shows before and after whole (LCS is quadratic). */
const MAX_DIFF_LINES = 1500;

function display(field: ListingField, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (field === 'screenshots') {
    const shots = value as Screenshot[];
    return shots.length === 0 ? null : shots.map((s, i) => `${i + 1}. ${s.url}${s.caption ? ` — ${s.caption}` : ''}`).join('\n');
  }
  if (field === 'permissions') {
    const permissions = value as Permission[];
    return permissions.length === 0 ? null : permissions.map((p) => `${p.scope}: ${p.reason}`).join('\n');
  }
  if (field === 'dataHandling') return describeDataHandling(value as DataHandling).join('\n');
  return String(value);
}

/** The longest common subsequence of lines, walked back into removals, additions and kept lines. */
export function lineDiff(before: string, after: string): LineChange[] | null {
  const a = before.split(/\r?\n/);
  const b = after.split(/\r?\n/);
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) return null;
  const table = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const out: LineChange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i]! });
      i += 1;
      j += 1;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) {
      out.push({ kind: 'del', text: a[i++]! });
    } else {
      out.push({ kind: 'add', text: b[j++]! });
    }
  }
  while (i < a.length) out.push({ kind: 'del', text: a[i++]! });
  while (j < b.length) out.push({ kind: 'add', text: b[j++]! });
  return out;
}

/** The fields whose values differ, in reading order; `fields` limits the comparison (a revision's keys). */
export function diffListings(before: Partial<Listing>, after: Partial<Listing>, fields: readonly ListingField[] = LISTING_FIELDS): FieldChange[] {
  return LISTING_FIELDS.filter((field) => fields.includes(field)).flatMap((field) => {
    const from = display(field, before[field]);
    const to = display(field, after[field]);
    if (from === to) return [];
    const lines = MULTI_LINE.includes(field) && from !== null && to !== null ? lineDiff(from, to) : null;
    return [{ field, label: LISTING_LABELS[field], before: from, after: to, lines }];
  });
}
