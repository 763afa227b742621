/**
 * A growable sorted list of small integers: the in-process search index's postings (the apps
 * holding one lexeme, by slot). Sorted, so two lists intersect by lookup and a union sorts once.
 */
export class SlotList {
  slots = new Int32Array(4);
  size = 0;

  add(slot: number): void {
    if (this.size === this.slots.length) this.resize(this.size * 2);
    // The first reading adds slots in increasing order: appended without a search.
    const at = this.size === 0 || this.slots[this.size - 1]! < slot ? this.size : lowerBound(this.slots, this.size, slot);
    if (at < this.size && this.slots[at] === slot) return;
    this.slots.copyWithin(at + 1, at, this.size);
    this.slots[at] = slot;
    this.size++;
  }

  remove(slot: number): void {
    const at = lowerBound(this.slots, this.size, slot);
    if (at >= this.size || this.slots[at] !== slot) return;
    this.slots.copyWithin(at, at + 1, this.size);
    this.size--;
  }

  /** Reallocates to `length` (at least the size): growth, or giving back the slack. */
  resize(length: number): void {
    const next = new Int32Array(Math.max(4, this.size, length));
    next.set(this.slots.subarray(0, this.size));
    this.slots = next;
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

export const contains = (slots: Int32Array, slot: number): boolean => {
  const at = lowerBound(slots, slots.length, slot);
  return at < slots.length && slots[at] === slot;
};
