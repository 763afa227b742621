import type { Logger } from './lib/logger.ts';

/**
 * `WEB_CONCURRENCY=N`: N API processes share the port (SO_REUSEPORT; the kernel spreads the
 * connections), so HTTP uses every core. This process is the first of them and runs the jobs as
 * before; the others are `--role api` children it starts, restarts if they die, and stops with
 * itself. Sharing the port must not let a second `bun start` join by accident, so the port is
 * first taken without sharing: if anyone holds it, start-up fails as it does with one process.
 */
export function assertPortFree(port: number, hostname: string): void {
  const probe = Bun.serve({ port, hostname, reusePort: false, fetch: () => new Response(null, { status: 503 }) });
  probe.stop(true);
}

export interface WebProcesses {
  stop(): Promise<void>;
}

const RESTART_DELAY_MS = 1_000;

export function startWebProcesses(extra: number, entry: string, logger: Logger): WebProcesses {
  let stopping = false;
  const children = new Set<ReturnType<typeof Bun.spawn>>();
  const spawn = (n: number) => {
    // The environment and Bun's own flags (`--smol`) are inherited: the child starts as this process did.
    const child = Bun.spawn([process.execPath, ...process.execArgv, entry, '--role', 'api', '--shared-port'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.add(child);
    void child.exited.then((code) => {
      children.delete(child);
      if (stopping) return;
      logger.error('API process exited; restarting it', { process: n, code });
      setTimeout(() => !stopping && spawn(n), RESTART_DELAY_MS);
    });
  };
  for (let n = 1; n <= extra; n += 1) spawn(n);
  return {
    async stop() {
      stopping = true;
      const exiting = [...children].map((child) => child.exited);
      for (const child of children) child.kill('SIGTERM');
      await Promise.all(exiting);
    },
  };
}
