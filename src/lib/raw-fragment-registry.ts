/**
 * MikroORM finds raw SQL used as an object key (a fragment as a computed key) through a registry
 * from the key's Symbol to its fragment, a WeakMap it keeps on `globalThis`. On Bun an object's
 * Symbol key does not keep the Symbol alive, so a collection between building a filter and compiling
 * it drops the fragment, and the ORM then drops the condition: `where lower(email) = ?` became no
 * `where` at all (D195). The ORM makes such keys itself, anew for every raw-keyed field of every
 * filter it processes, where `rawKey` cannot reach them (D198). This registry is installed in the
 * ORM's place when this module loads, before the ORM (every entry point imports it first),
 * and also holds each Symbol strongly for at least HOLD_MS after it was registered: far longer
 * than a query takes from its filter to its SQL. After that, only `rawKey`'s own keys stay known.
 * It must not import the ORM: whichever loads first decides the registry.
 */
const REGISTRY = Symbol.for('@mikro-orm/core/RawQueryFragment.references');
const HOLD_MS = 30_000;

/** The WeakMap's part of the interface the ORM uses (`get`, `set`, `has`), plus a strong hold of recent keys. */
class HeldRegistry<Key extends WeakKey, Value> {
  readonly #weak = new WeakMap<Key, Value>();
  /** Keys registered in this period and the one before; the older period is let go when a new one starts. */
  #recent = new Set<Key>();
  #older = new Set<Key>();
  #periodStart = performance.now();

  get(key: Key): Value | undefined {
    return this.#weak.get(key);
  }

  has(key: Key): boolean {
    return this.#weak.has(key);
  }

  set(key: Key, value: Value): this {
    const now = performance.now();
    if (now - this.#periodStart >= HOLD_MS) {
      this.#older = this.#recent;
      this.#recent = new Set();
      this.#periodStart = now;
    }
    this.#recent.add(key);
    this.#weak.set(key, value);
    return this;
  }

  delete(key: Key): boolean {
    this.#recent.delete(key);
    this.#older.delete(key);
    return this.#weak.delete(key);
  }
}

const registryOf = () => (globalThis as Record<symbol, unknown>)[REGISTRY];

/** Puts the holding registry where the ORM will look, unless the ORM has already put its own there. */
function installRawFragmentRegistry(): void {
  (globalThis as Record<symbol, unknown>)[REGISTRY] ??= new HeldRegistry();
}

/** Refuses to go on when the ORM loaded before the registry was installed: its filters could lose their conditions. */
export function assertRawFragmentRegistry(): void {
  if (!(registryOf() instanceof HeldRegistry)) {
    throw new Error('The ORM was loaded before the raw SQL fragment registry: import src/lib/raw-fragment-registry.ts first (D198)');
  }
}

installRawFragmentRegistry();
