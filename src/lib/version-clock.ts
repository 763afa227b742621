/**
 * The newest version of some shared state this process has seen, re-read at most every
 * `maxAgeMs`. Between reads everyone gets the number they already have, and a read that is due is
 * shared by every caller waiting for it. A reading up to three times that old is still given out
 * while a new read runs in the background, so callers wait for a read only when none finished for
 * a while (or after `expire`): the version is never older than `3 × maxAgeMs` plus one read.
 * Versions only move forward.
 */
export interface VersionClock {
  /** The version, re-read first when the last reading is older than `maxAgeMs`. */
  current(): Promise<number>;
  /** Marks a version as seen (a reading taken elsewhere, e.g. with a cache fill). */
  observe(version: number): void;
  /** Makes the next `current()` read again (this process just changed the state). */
  expire(): void;
  /** The version, if a reading recent enough can be given without waiting (a due one starts in the background); else undefined. */
  fresh(): number | undefined;
}

const STALE_AFTER = 3;

export function createVersionClock(read: () => Promise<number>, maxAgeMs: number): VersionClock {
  let version = 0;
  let readAt = -Infinity;
  let expiredAt = -Infinity;
  let reading: Promise<number> | undefined;
  const observe = (seen: number) => {
    if (seen > version) version = seen;
  };
  const start = () => {
    const started = performance.now();
    const pending = read().then((seen) => {
      observe(seen);
      // Fresh from when the question was asked, and only if nothing changed since it was.
      if (started >= expiredAt) readAt = Math.max(readAt, started);
      return version;
    });
    reading = pending;
    const settled = () => {
      if (reading === pending) reading = undefined;
    };
    pending.then(settled, settled);
    return pending;
  };
  const fresh = () => {
    const age = performance.now() - readAt;
    if (age < maxAgeMs) return version;
    if (age >= maxAgeMs * STALE_AFTER) return undefined;
    // Errors surface to the callers that wait for a read once this reading is too old.
    if (!reading) start().catch(() => {});
    return version;
  };
  return {
    observe,
    expire() {
      expiredAt = performance.now();
      readAt = -Infinity;
      reading = undefined;
    },
    fresh,
    current() {
      const known = fresh();
      return known === undefined ? (reading ?? start()) : Promise.resolve(known);
    },
  };
}
