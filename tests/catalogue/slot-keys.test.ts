import { expect, test } from 'bun:test';
import { pick, seededRandom } from '../../src/lib/seeded-random.ts';
import { IdColumn, NameColumn } from '../../src/modules/catalogue/slot-keys.ts';

/**
 * The search index finds an app's slot by its id, and the apps named exactly as a search, from
 * typed arrays instead of `Map`s (D204). They must answer as the `Map`s did while apps come, leave,
 * are renamed and share names, past every growth of their tables.
 */
test('ids find their slots as a map does, through adds, removes and reused slots', () => {
  const random = seededRandom(204);
  const ids = new IdColumn();
  const expected = new Map<string, number>();
  const free: number[] = [];
  let next = 0;
  for (let step = 0; step < 12_000; step++) {
    if (expected.size > 0 && random() < 0.3) {
      const [id, slot] = pick(random, [...expected]);
      ids.delete(slot);
      expected.delete(id);
      free.push(slot);
    } else {
      const id = Bun.randomUUIDv7();
      const slot = free.pop() ?? next++;
      ids.set(slot, id);
      expected.set(id, slot);
    }
  }
  expect(expected.size).toBeGreaterThan(4_000);
  for (const [id, slot] of expected) {
    expect(ids.slotOf(id)).toBe(slot);
    expect(ids.idOf(slot)).toBe(id);
  }
  expect(ids.slotOf(Bun.randomUUIDv7())).toBeUndefined();
  // Slots order as their ids' text does (the index's tie-break, as PostgreSQL's `app_id desc`).
  const slots = [...expected.values()].sort((a, b) => ids.compare(a, b));
  expect(slots.map((slot) => ids.idOf(slot))).toEqual([...expected.keys()].sort());
});

test('names find every slot of that name, through renames and removals', () => {
  const random = seededRandom(205);
  const names = new NameColumn();
  const nameOf = new Map<number, string>();
  // Few names, so many slots share one and buckets chain.
  const pool = Array.from({ length: 300 }, (_, i) => `app ${i} planner`);
  for (let step = 0; step < 20_000; step++) {
    const slot = Math.floor(random() * 3_000);
    if (random() < 0.2) {
      names.delete(slot);
      nameOf.delete(slot);
    } else {
      const name = pick(random, pool);
      names.set(slot, name);
      nameOf.set(slot, name);
    }
  }
  for (const name of [...pool, 'no such app']) {
    const holding = [...nameOf].filter(([, held]) => held === name).map(([slot]) => slot);
    expect(names.slotsNamed(name).sort((a, b) => a - b)).toEqual(holding.sort((a, b) => a - b));
  }
});

test('an id that is not a uuid text is refused rather than stored cut or padded', () => {
  expect(() => new IdColumn().set(0, 'not-an-id')).toThrow();
});
