/**
 * The newest version of some shared state this process has seen, re-read at most every
 * `maxAgeMs`. Between reads everyone gets the number they already have, and a read that is due is
 * shared by every caller waiting for it. Versions only move forward.
 */
export interface VersionClock {
  /** The version, re-read first when the last reading is older than `maxAgeMs`. */
  current(): Promise<number>;
  /** Marks a version as seen (a reading taken elsewhere, e.g. with a cache fill). */
  observe(version: number): void;
  /** Makes the next `current()` read again (this process just changed the state). */
  expire(): void;
  /** The version if it was read within `maxAgeMs`, without waiting; else undefined. */
  fresh(): number | undefined;
}

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
  return {
    observe,
    expire() {
      expiredAt = performance.now();
      readAt = -Infinity;
      reading = undefined;
    },
    fresh() {
      return performance.now() - readAt < maxAgeMs ? version : undefined;
    },
    current() {
      if (performance.now() - readAt < maxAgeMs) return Promise.resolve(version);
      return reading ?? start();
    },
  };
}
