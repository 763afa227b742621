/**
 * A bound on how long a request waits for a database connection. A burst larger than the pool
 * queues here (first come, first served, reads in the background behind them) instead of failing;
 * only past `waitMs` is it refused with `ConnectionWaitExceeded`, which the HTTP layer answers as 503
 * OVERLOADED. Establishing a connection is bounded separately (the driver's connect timeout): that
 * failure means the database is unreachable, not busy.
 */
export const CONNECTION_WAIT_EXCEEDED = 'CONNECTION_WAIT_EXCEEDED';

export class ConnectionWaitExceeded extends Error {
  override name = 'ConnectionWaitExceeded';
  readonly code = CONNECTION_WAIT_EXCEEDED;
  constructor(readonly waitMs: number) {
    super(`no database connection became free within ${waitMs} ms`);
  }
}

export interface ConnectionGate {
  /**
   * Resolves with the function that gives the permit back, or rejects after `waitMs`. A
   * `background` read (one no request waits for) is granted only while no request waits, and
   * holds at most half the permits: a burst of them never takes every connection from requests (D224).
   */
  acquire(background?: boolean): Promise<() => void>;
  readonly waiting: number;
}

/** Each gated pool's gate, by the pool it guards: where that pool's waiting requests are (it never queues itself). */
const gates = new WeakMap<object, ConnectionGate>();

/** Requests waiting for a connection of a gated `pool`; undefined for a pool without a gate. */
export const waitingAtGate = (pool: object): number | undefined => gates.get(pool)?.waiting;

export function createConnectionGate(permits: number, waitMs: number, guarding?: object): ConnectionGate {
  let free = permits;
  const backgroundLimit = Math.max(1, permits >> 1);
  let backgroundHeld = 0;
  type Waiter = { background: boolean; grant: (release: () => void) => void; timer: Timer };
  const requests: Waiter[] = [];
  const backgrounds: Waiter[] = [];
  const take = (background: boolean) => {
    if (background) backgroundHeld += 1;
    return once(background);
  };
  const release = (background: boolean) => {
    if (background) backgroundHeld -= 1;
    const next = requests.shift() ?? (backgroundHeld < backgroundLimit ? backgrounds.shift() : undefined);
    if (next) {
      clearTimeout(next.timer);
      next.grant(take(next.background));
    } else {
      free += 1;
    }
  };
  // Each permit is given back exactly once, whatever the caller does.
  const once = (background: boolean) => {
    let done = false;
    return () => {
      if (!done) {
        done = true;
        release(background);
      }
    };
  };
  const gate: ConnectionGate = {
    get waiting() {
      return requests.length + backgrounds.length;
    },
    acquire(background = false) {
      if (free > 0 && (!background || backgroundHeld < backgroundLimit)) {
        free -= 1;
        return Promise.resolve(take(background));
      }
      const queue = background ? backgrounds : requests;
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          background,
          grant: resolve,
          timer: setTimeout(() => {
            queue.splice(queue.indexOf(waiter), 1);
            reject(new ConnectionWaitExceeded(waitMs));
          }, waitMs),
        };
        queue.push(waiter);
      });
    },
  };
  if (guarding) gates.set(guarding, gate);
  return gate;
}

/** After a failed connection, how long requests are told at once that the database is unreachable. */
const UNREACHABLE_FOR_MS = 1_000;

/**
 * While the database is down, requests should not queue behind connection attempts that will fail
 * too: for a moment after a connection failed, `throwIfRecent` throws that failure at once (503
 * UNAVAILABLE). Each pool keeps one.
 */
export function createConnectionFailures() {
  let failed: { error: unknown; at: number } | undefined;
  return {
    throwIfRecent(): void {
      if (failed && performance.now() - failed.at < UNREACHABLE_FOR_MS) throw failed.error;
    },
    failed(error: unknown): void {
      failed = { error, at: performance.now() };
    },
    connected(): void {
      failed = undefined;
    },
  };
}
