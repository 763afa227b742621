/**
 * A growable sorted list of small integers with a number beside each: the in-process search
 * index's postings (the apps holding one lexeme, by slot, each with the lexeme's term of an OR
 * query's rank in that app, `lexemeTerm`). Sorted, so a union sorts once and membership is a
 * binary search; the terms let a one-group search rank its candidates without reading their
 * documents. A dense list (a common word's) also answers membership from a bitmap (`has`).
 */
export class SlotList {
  slots = new Int32Array(4);
  terms = new Float32Array(4);
  size = 0;
  /** One bit per slot, once `indexDense` found the list dense; kept up to date from then on. */
  private bits: Uint32Array | undefined;

  add(slot: number, term: number): void {
    if (this.size === this.slots.length) this.resize(this.size * 2);
    // The first reading adds slots in increasing order: appended without a search.
    const at = this.size === 0 || this.slots[this.size - 1]! < slot ? this.size : lowerBound(this.slots, this.size, slot);
    if (at < this.size && this.slots[at] === slot) {
      this.terms[at] = term;
      return;
    }
    this.slots.copyWithin(at + 1, at, this.size);
    this.terms.copyWithin(at + 1, at, this.size);
    this.slots[at] = slot;
    this.terms[at] = term;
    this.size++;
    if (this.bits) {
      if (slot >>> 5 >= this.bits.length) {
        const wider = new Uint32Array(Math.max((slot >>> 5) + 1, this.bits.length * 2));
        wider.set(this.bits);
        this.bits = wider;
      }
      this.bits[slot >>> 5]! |= 1 << (slot & 31);
    }
  }

  remove(slot: number): void {
    const at = lowerBound(this.slots, this.size, slot);
    if (at >= this.size || this.slots[at] !== slot) return;
    this.slots.copyWithin(at, at + 1, this.size);
    this.terms.copyWithin(at, at + 1, this.size);
    this.size--;
    if (this.bits) this.bits[slot >>> 5]! &= ~(1 << (slot & 31));
  }

  /**
   * Builds the bitmap when the list holds at least one slot in 32 of those it spans, where a bitmap
   * takes no more room than the list itself: the lists a search walks or intersects most.
   */
  indexDense(): void {
    if (this.bits || this.size < 64 || this.size * 32 < this.slots[this.size - 1]! + 1) return;
    const bits = new Uint32Array((this.slots[this.size - 1]! >>> 5) + 1);
    for (let i = 0; i < this.size; i++) bits[this.slots[i]! >>> 5]! |= 1 << (this.slots[i]! & 31);
    this.bits = bits;
  }

  /** Whether membership is a bit (`indexDense` built the bitmap), not a binary search. */
  get dense(): boolean {
    return this.bits !== undefined;
  }

  has(slot: number): boolean {
    const bits = this.bits;
    if (bits) return slot >>> 5 < bits.length && (bits[slot >>> 5]! & (1 << (slot & 31))) !== 0;
    return indexIn(this.slots, this.size, slot) >= 0;
  }

  /**
   * Membership for slots asked in increasing order: `cursor[at]` holds where the last ask stopped
   * (0 before the first), and the search gallops forward from there, costing the log of the gap
   * rather than of the list. A dense list answers from its bitmap.
   */
  hasAscending(slot: number, cursor: Int32Array, at: number): boolean {
    if (this.bits) return this.has(slot);
    const { slots, size } = this;
    let low = cursor[at]!;
    let bound = low;
    for (let step = 1; bound < size && slots[bound]! < slot; step <<= 1) {
      low = bound + 1;
      bound += step;
    }
    const found = lowerBound(slots, Math.min(bound, size), slot, low);
    cursor[at] = found;
    return found < size && slots[found] === slot;
  }

  /** Reallocates to `length` (at least the size): growth, or giving back the slack. */
  resize(length: number): void {
    const room = Math.max(4, this.size, length);
    const slots = new Int32Array(room);
    slots.set(this.slots.subarray(0, this.size));
    const terms = new Float32Array(room);
    terms.set(this.terms.subarray(0, this.size));
    this.slots = slots;
    this.terms = terms;
  }
}

/** Each slot held by any of `lists`, once, in increasing order (a merge of the sorted lists). */
export function forEachOnce(lists: readonly SlotList[], visit: (slot: number) => void): void {
  const heads = new Int32Array(lists.length);
  for (;;) {
    let slot = -1;
    for (let l = 0; l < lists.length; l++) {
      const list = lists[l]!;
      if (heads[l]! < list.size && (slot < 0 || list.slots[heads[l]!]! < slot)) slot = list.slots[heads[l]!]!;
    }
    if (slot < 0) return;
    for (let l = 0; l < lists.length; l++) if (heads[l]! < lists[l]!.size && lists[l]!.slots[heads[l]!] === slot) heads[l]!++;
    visit(slot);
  }
}

/** Where `slot` is, or would go, among the first `size` of sorted `slots` (from `from` on, when all before it are smaller). */
function lowerBound(slots: Int32Array, size: number, slot: number, from = 0): number {
  let low = from;
  let high = size;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (slots[mid]! < slot) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Where `slot` is among the first `size` of sorted `slots`, or -1. */
export const indexIn = (slots: Int32Array, size: number, slot: number): number => {
  const at = lowerBound(slots, size, slot);
  return at < size && slots[at] === slot ? at : -1;
};
