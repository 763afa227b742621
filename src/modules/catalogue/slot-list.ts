/**
 * A growable sorted list of small integers with a number beside each: the in-process search
 * index's postings (the apps holding one lexeme, by slot, each with the lexeme's term of an OR
 * query's rank in that app, `lexemeTerm`). Sorted, so two lists intersect by lookup and a union
 * sorts once; the terms let a one-group search rank its candidates without reading their documents.
 */
export class SlotList {
  slots = new Int32Array(4);
  terms = new Float32Array(4);
  size = 0;

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
  }

  remove(slot: number): void {
    const at = lowerBound(this.slots, this.size, slot);
    if (at >= this.size || this.slots[at] !== slot) return;
    this.slots.copyWithin(at, at + 1, this.size);
    this.terms.copyWithin(at, at + 1, this.size);
    this.size--;
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

  view(): Int32Array {
    return this.slots.subarray(0, this.size);
  }
}

/** Where `slot` is, or would go, among the first `size` of sorted `slots`. */
function lowerBound(slots: Int32Array, size: number, slot: number): number {
  let low = 0;
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

export const contains = (slots: Int32Array, slot: number): boolean => indexIn(slots, slots.length, slot) >= 0;
