import { LRUCache } from 'lru-cache';
import type { VersionClock } from './version-clock.ts';

/**
 * A size-bounded in-process cache whose entries carry the version of the data they were built
 * from. An entry older than the clock's current version is a miss; concurrent misses of one key at
 * one version share a single load. The loader reports the version it read together with the data
 * (from the same server), so an answer from a lagging replica is never kept as current.
 */
export interface Loaded<Value> {
  version: number;
  value: Value;
}

export interface VersionedCache<Value> {
  /**
   * `load` is told the version the clock is at (and whether it replaces an entry in the background,
   * with no reader waiting for it), and reports the version it actually read at. With
   * `keep` false what it loads is not kept (an answer unlikely to be asked again must not push out
   * the ones that are); concurrent misses still share it.
   */
  get(key: string, load: Load<Value>, keep?: boolean): Promise<Value>;
  /**
   * The entry, if one is current and the clock is fresh: an answer without waiting for anything.
   * One out of date only in what `outdated` checks is answered too when `load` is given, and `load`
   * replaces it in the background, as `get` does; without `load` it is not answered.
   */
  peek(key: string, load?: Load<Value>): Value | undefined;
  /** Keeps a value read elsewhere, at the version it was read at. */
  put(key: string, loaded: Loaded<Value>): void;
  readonly size: number;
}

/** Reads a value at `current` or newer; `inBackground` when no reader waits for it. */
export type Load<Value> = (current: number, inBackground: boolean) => Promise<Loaded<Value>>;

export function createVersionedCache<Value extends {}>(
  clock: VersionClock,
  options: {
    maxEntries: number;
    maxSize?: number;
    sizeOf?: (value: Value) => number;
    /**
     * Whether an entry at the current version is out of date all the same, in what the version does
     * not cover: `get` still answers with it while it reads the new one (`peek` does not).
     */
    outdated?: (value: Value) => boolean;
  },
): VersionedCache<Value> {
  const outdated = options.outdated ?? (() => false);
  // No one entry may take more than a sixteenth of the size bound.
  const maxEntrySize = options.maxSize ? options.maxSize / 16 : 0;
  const entries = new LRUCache<string, Loaded<Value>>({
    max: options.maxEntries,
    ...(options.maxSize && options.sizeOf
      ? {
          maxSize: options.maxSize,
          maxEntrySize,
          sizeCalculation: (entry: Loaded<Value>) => Math.max(1, options.sizeOf!(entry.value)),
        }
      : {}),
  });
  const loading = new Map<string, Promise<Value>>();
  // Versions only move forward, so once the clock moves every entry is dead weight: drop them all.
  let newest = 0;
  const sweep = (version: number) => {
    if (version > newest) {
      if (newest > 0) entries.clear();
      newest = version;
    }
  };
  /**
   * One read of `key` at `version` however many ask for it; with `keep` its answer replaces the entry.
   * A reader that joins a background read (its entry was pushed out meanwhile, rare) waits at its lane.
   */
  const read = (key: string, version: number, load: Load<Value>, keep: boolean, inBackground = false): Promise<Value> => {
    const flight = `${version}\u0000${key}`;
    let pending = loading.get(flight);
    if (!pending) {
      pending = (async () => {
        try {
          const loaded = await load(version, inBackground);
          clock.observe(loaded.version);
          if (keep && loaded.version >= version && loaded.version >= newest) entries.set(key, loaded);
          return loaded.value;
        } finally {
          loading.delete(flight);
        }
      })();
      loading.set(flight, pending);
    }
    return pending;
  };
  const replaceInBackground = (key: string, version: number, load: Load<Value>) => {
    read(key, version, load, true, true).catch(() => {});
  };
  return {
    get size() {
      return entries.size;
    },
    peek(key, load) {
      const version = clock.fresh();
      if (version === undefined) return undefined;
      sweep(version);
      const cached = entries.get(key);
      if (!cached || cached.version < version) return undefined;
      if (!outdated(cached.value)) return cached.value;
      if (!load) return undefined;
      replaceInBackground(key, version, load);
      return cached.value;
    },
    put(key, loaded) {
      if (loaded.version >= newest) entries.set(key, loaded);
    },
    async get(key, load, keep = true) {
      const version = await clock.current();
      sweep(version);
      const cached = entries.get(key);
      if (cached && cached.version >= version) {
        if (!outdated(cached.value)) return cached.value;
        // Still current in what the version covers, out of date only in what `outdated` checks (counters):
        // it is answered at once while one read replaces it, so no reader waits for PostgreSQL on its account.
        replaceInBackground(key, version, load);
        return cached.value;
      }
      return read(key, version, load, keep);
    },
  };
}
