import type { InstallResult } from './installs.model.ts';
import type { InstallOutcome, InstallRequest } from './installs.service.ts';

/**
 * Group commit for installs: requests that arrive while earlier batches are being written wait
 * and go together, in one INSERT (`recordInstalls`). A lone install goes at
 * once, so nothing waits when there is no crowd; under load one commit serves many. Each answer is
 * given only after its batch committed, so a 201 still means the install is stored.
 */
/** Batches written at the same time by default: the installs' connections (`installWriter`'s pool, which uninstalls share, D225). */
export const INSTALL_BATCHES_AT_ONCE = 3;

export interface InstallBatcherOptions {
  /** Largest batch. */
  maxBatch: number;
  /** Batches written at the same time (each holds one connection). */
  parallel: number;
}

export function createInstallBatcher(
  write: (requests: InstallRequest[]) => Promise<InstallOutcome[]>,
  options: InstallBatcherOptions = { maxBatch: 64, parallel: INSTALL_BATCHES_AT_ONCE },
) {
  const waiting: { request: InstallRequest; resolve: (result: InstallResult) => void; reject: (error: unknown) => void }[] = [];
  let writing = 0;
  const pump = () => {
    while (writing < options.parallel && waiting.length > 0) {
      const batch = waiting.splice(0, options.maxBatch);
      writing += 1;
      write(batch.map((entry) => entry.request))
        .then(
          (outcomes) => outcomes.forEach((outcome, i) => (outcome.ok ? batch[i]!.resolve(outcome.result) : batch[i]!.reject(outcome.error))),
          (error: unknown) => batch.forEach((entry) => entry.reject(error)),
        )
        .finally(() => {
          writing -= 1;
          pump();
        });
    }
  };
  return {
    record(request: InstallRequest): Promise<InstallResult> {
      return new Promise((resolve, reject) => {
        waiting.push({ request, resolve, reject });
        pump();
      });
    },
  };
}
