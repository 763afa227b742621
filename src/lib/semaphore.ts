/**
 * Bounds how many of an expensive task run at once (argon2id verifications take ~160 ms of a
 * core each). Callers beyond `maxWaiting` are turned away at once rather than queued without end.
 */
export class SemaphoreFullError extends Error {
  override name = 'SemaphoreFullError';
}

export interface Semaphore {
  run<T>(task: () => Promise<T>): Promise<T>;
}

export function createSemaphore(maxRunning: number, maxWaiting: number): Semaphore {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    running -= 1;
    const next = waiting.shift();
    if (next) {
      running += 1;
      next();
    }
  };
  return {
    async run(task) {
      if (running >= maxRunning) {
        if (waiting.length >= maxWaiting) throw new SemaphoreFullError('too many tasks waiting');
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running += 1;
      }
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
