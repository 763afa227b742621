type GrowableArray = Int32Array | Uint8Array | BigUint64Array;

/** A copy of `old` in a new typed array of the same kind and `length` elements (at least old's): growth without a helper per array. */
export const widened = <T extends GrowableArray>(old: T, length: number): T => {
  const next = new (old.constructor as new (length: number) => T)(length);
  next.set(old as never);
  return next;
};
