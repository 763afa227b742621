import { widened } from '../../lib/widened.ts';

/**
 * The search index's keys per slot, its apps' ids and lower-cased names, kept in typed arrays
 * (D204): as strings in `Map`s they were 200,000 heap objects at 100,000 apps, which every full
 * collection marked and whose scattered blocks kept the heap large.
 */

const EMPTY = -1;

/**
 * Slots found by a 32-bit hash of their key: a bucket per hash's low bits, chained through the
 * slots. The caller tells whether a slot's key is the one sought (`matches`).
 */
class SlotTable {
  private heads = new Int32Array(1024).fill(EMPTY);
  private next = new Int32Array(1024);
  private hashes = new Int32Array(1024);
  private size = 0;

  add(slot: number, hash: number): void {
    if (slot >= this.next.length) {
      const length = Math.max(slot + 1, this.next.length * 2);
      this.next = widened(this.next, length);
      this.hashes = widened(this.hashes, length);
    }
    // At most one slot per bucket on average.
    if (++this.size > this.heads.length) this.rebucket(this.heads.length * 2);
    this.hashes[slot] = hash;
    const bucket = hash & (this.heads.length - 1);
    this.next[slot] = this.heads[bucket]!;
    this.heads[bucket] = slot;
  }

  remove(slot: number): void {
    const bucket = this.hashes[slot]! & (this.heads.length - 1);
    if (this.heads[bucket] === slot) this.heads[bucket] = this.next[slot]!;
    else {
      let at = this.heads[bucket]!;
      while (this.next[at] !== slot) at = this.next[at]!;
      this.next[at] = this.next[slot]!;
    }
    this.size--;
  }

  /** The slots of `hash`'s bucket whose key `matches`. */
  find(hash: number, matches: (slot: number) => boolean): number[] {
    const found: number[] = [];
    for (let slot = this.heads[hash & (this.heads.length - 1)]!; slot !== EMPTY; slot = this.next[slot]!) if (matches(slot)) found.push(slot);
    return found;
  }

  private rebucket(buckets: number): void {
    const chained: number[] = [];
    for (const head of this.heads) for (let slot = head; slot !== EMPTY; slot = this.next[slot]!) chained.push(slot);
    this.heads = new Int32Array(buckets).fill(EMPTY);
    for (const slot of chained) {
      const bucket = this.hashes[slot]! & (buckets - 1);
      this.next[slot] = this.heads[bucket]!;
      this.heads[bucket] = slot;
    }
  }
}

/** An app id's text (`uuid::text`): 36 ASCII characters, kept as bytes. */
const ID_LENGTH = 36;

/** Each slot's app id, and the slot of an id. */
export class IdColumn {
  private text = Buffer.alloc(0);
  private readonly table = new SlotTable();

  slotOf(id: string): number | undefined {
    return this.table.find(Bun.hash.murmur32v3(id), (slot) => this.holds(slot, id))[0];
  }

  set(slot: number, id: string): void {
    if (id.length !== ID_LENGTH) throw new Error(`not an app id: ${id}`);
    if ((slot + 1) * ID_LENGTH > this.text.length) {
      const wider = Buffer.alloc(Math.max((slot + 1) * ID_LENGTH, this.text.length * 2));
      this.text.copy(wider);
      this.text = wider;
    }
    this.text.write(id, slot * ID_LENGTH, 'latin1');
    this.table.add(slot, Bun.hash.murmur32v3(id));
  }

  delete(slot: number): void {
    this.table.remove(slot);
  }

  idOf(slot: number): string {
    return this.text.toString('latin1', slot * ID_LENGTH, (slot + 1) * ID_LENGTH);
  }

  /** Orders two slots as their ids' text does. */
  compare(a: number, b: number): number {
    const text = this.text;
    for (let i = 0, x = a * ID_LENGTH, y = b * ID_LENGTH; i < ID_LENGTH; i++, x++, y++) if (text[x] !== text[y]) return text[x]! - text[y]!;
    return 0;
  }

  private holds(slot: number, id: string): boolean {
    const text = this.text;
    for (let i = 0, at = slot * ID_LENGTH; i < ID_LENGTH; i++, at++) if (text[at] !== id.charCodeAt(i)) return false;
    return true;
  }
}

/**
 * Each slot's lower-cased name as a 64-bit hash, and the slots of a name: two names are taken as
 * one when their 64-bit hashes are (at 100,000 names, one chance in 10^14 per search of a false
 * exact match).
 */
export class NameColumn {
  private low = new Int32Array(0);
  private high = new Int32Array(0);
  private named = new Uint8Array(0);
  private readonly table = new SlotTable();

  slotsNamed(name: string): number[] {
    const [low, high] = halves(name);
    return this.table.find(low, (slot) => this.low[slot] === low && this.high[slot] === high);
  }

  /** Names `slot` (renames it when it had a name). */
  set(slot: number, name: string): void {
    const [low, high] = halves(name);
    if (slot >= this.named.length) {
      const length = Math.max(slot + 1, this.named.length * 2);
      this.low = widened(this.low, length);
      this.high = widened(this.high, length);
      this.named = widened(this.named, length);
    }
    if (this.named[slot]) {
      if (this.low[slot] === low && this.high[slot] === high) return;
      this.table.remove(slot);
    }
    this.low[slot] = low;
    this.high[slot] = high;
    this.named[slot] = 1;
    this.table.add(slot, low);
  }

  delete(slot: number): void {
    if (!this.named[slot]) return;
    this.table.remove(slot);
    this.named[slot] = 0;
  }
}

const halves = (name: string): [number, number] => {
  const hash = Bun.hash.wyhash(name);
  return [Number(hash & 0xffffffffn) | 0, Number(hash >> 32n) | 0];
};
