import { expect, test } from 'bun:test';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import { SlotList } from '../../src/modules/catalogue/slot-list.ts';

/**
 * A posting list answers membership from its bitmap once it is dense (`indexDense`), so the bitmap
 * must follow every later change: the index keeps lists for as long as the process runs, while
 * apps come, leave and change their words.
 */
test('a dense list answers membership as its slots do, through adds and removes after its bitmap is built', () => {
  const random = seededRandom(22);
  const list = new SlotList();
  const held = new Set<number>();
  for (let slot = 0; slot < 3_000; slot++) {
    if (random() < 0.5) {
      list.add(slot, slot / 10);
      held.add(slot);
    }
  }
  list.indexDense();
  // Apps leave, new ones take slots beyond the bitmap's end, and freed slots come back.
  for (let step = 0; step < 4_000; step++) {
    const slot = Math.floor(random() * 6_000);
    if (held.has(slot)) {
      list.remove(slot);
      held.delete(slot);
    } else {
      list.add(slot, slot / 10);
      held.add(slot);
    }
  }
  for (let slot = 0; slot < 7_000; slot++) expect(list.has(slot)).toBe(held.has(slot));
  expect([...list.slots.subarray(0, list.size)]).toEqual([...held].sort((a, b) => a - b));
  // Each slot keeps its own term through the moves.
  expect([...list.terms.subarray(0, list.size)]).toEqual([...list.slots.subarray(0, list.size)].map((slot) => Math.fround(slot / 10)));
});

test('a sparse list keeps no bitmap and answers by search', () => {
  const list = new SlotList();
  for (const slot of [5, 900, 40_000, 1_000_000]) list.add(slot, 1);
  list.indexDense();
  expect([5, 900, 40_000, 1_000_000].map((slot) => list.has(slot))).toEqual([true, true, true, true]);
  expect([0, 6, 899, 999_999].some((slot) => list.has(slot))).toBe(false);
});
