/**
 * Work started and not yet finished (the HTTP requests being handled), so a shutdown can wait for
 * it before closing the pools it uses. A stopped server only waits for its open connections: a
 * request whose client hung up still runs after that, and must not meet a closed pool.
 */
export interface InFlight {
  /** Counts one piece of work in; the function returned counts it out (once, however often it is called). */
  enter(): () => void;
  readonly count: number;
  /** Resolves true once nothing is in flight, or false when `timeoutMs` passes first. */
  drained(timeoutMs: number): Promise<boolean>;
}

export function createInFlight(): InFlight {
  let count = 0;
  let waiters: (() => void)[] = [];
  const leave = () => {
    count -= 1;
    if (count === 0) {
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    }
  };
  return {
    get count() {
      return count;
    },
    enter() {
      count += 1;
      let done = false;
      return () => {
        if (!done) {
          done = true;
          leave();
        }
      };
    },
    drained(timeoutMs) {
      if (count === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
  };
}
