import { expect, test } from 'bun:test';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import { forEachOnce, SlotList } from '../../src/modules/catalogue/slot-list.ts';

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

/**
 * A search's few-matches path (D226) visits the rarest group's apps once each in slot order and
 * asks the other groups' lists forward from where the last ask stopped: the answers must be the
 * plain ones whatever the gaps, for sparse and dense lists alike.
 */
test('slots asked in increasing order get the same answers as asked one by one, and a union visits each slot once in order', () => {
  const random = seededRandom(226);
  const lists = [0.002, 0.01, 0.3].map((share) => {
    const list = new SlotList();
    for (let slot = 0; slot < 20_000; slot++) if (random() < share) list.add(slot, 1);
    list.indexDense();
    return list;
  });
  expect(lists.map((list) => list.dense)).toEqual([false, false, true]);
  const cursor = new Int32Array(lists.length);
  const asked = Array.from({ length: 20_500 }, (_, slot) => slot).filter(() => random() < 0.4);
  for (const slot of asked) {
    expect(lists.map((list, at) => list.hasAscending(slot, cursor, at))).toEqual(lists.map((list) => list.has(slot)));
  }

  const visited: number[] = [];
  forEachOnce([lists[0]!, lists[1]!, lists[0]!], (slot) => visited.push(slot));
  const union = new Set([...lists[0]!.slots.subarray(0, lists[0]!.size), ...lists[1]!.slots.subarray(0, lists[1]!.size)]);
  expect(visited).toEqual([...union].sort((a, b) => a - b));
  forEachOnce([], () => {
    throw new Error('an empty union has no slot');
  });
});
