// First: the ORM must find this registry when it loads (D198).
import './lib/raw-fragment-registry.ts';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Role } from './config.ts';
import { createLogger } from './lib/logger.ts';
import { startRuntime } from './runtime.ts';
import { createApp } from './app.ts';
import { ensureDevelopmentAdmin } from './modules/admin-accounts/admins.service.ts';
import { serveMetrics } from './modules/metrics/metrics.api.ts';
import { queueRegistry } from '../jobs/registry.ts';
import { assertPortFree, startWebProcesses } from './web-processes.ts';

/**
 * `bun start`: the API and the workers in one process. `--role api` serves HTTP only,
 * `--role worker` runs jobs only; any number of each can share one PostgreSQL.
 */
const { values } = parseArgs({ options: { role: { type: 'string', default: 'all' }, 'shared-port': { type: 'boolean', default: false } } });
const role = values.role as Role;
if (!['all', 'api', 'worker'].includes(role)) {
  process.stderr.write(`Unknown role "${values.role}": use all, api or worker\n`);
  process.exit(2);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`Configuration error: ${error.message}\n`);
    process.exit(78);
  }
  throw error;
}
const logger = createLogger(config.logLevel, { role });
const runtime = await startRuntime(config, logger, { role }).catch((error) => {
  logger.error('start-up failed', { error: (error as Error).message });
  process.exit(1);
});

if (config.env === 'development') await ensureDevelopmentAdmin(runtime.ctx.orm.em.fork(), logger);

/**
 * One process owns its port: a second `bun start` must fail loudly, not quietly share the socket.
 * With `WEB_CONCURRENCY` the port is shared, but only among the processes this start-up made.
 */
const sharedPort = values['shared-port'] || config.webConcurrency > 1;
function listen() {
  try {
    if (sharedPort && !values['shared-port']) assertPortFree(config!.port, config!.host);
    // `development: false`: Bun's own error page (with a stack trace) is never shown to anyone.
    return createApp(runtime.ctx).listen({ port: config!.port, hostname: config!.host, reusePort: sharedPort, development: false });
  } catch (error) {
    const inUse = (error as { code?: string }).code === 'EADDRINUSE' || /in use/i.test((error as Error).message);
    logger.error(inUse ? `address in use: ${config!.host}:${config!.port} is taken by another process` : 'could not listen', {
      error: (error as Error).message,
    });
    return undefined;
  }
}

const server = role === 'worker' ? undefined : listen();
if (role !== 'worker' && !server) {
  await runtime.stop();
  process.exit(1);
}
// Every role, the worker included, answers scrapes on METRICS_PORT when it is set (with
// WEB_CONCURRENCY, the first API process: the others share the API port, not that one).
let metricsServer: ReturnType<typeof serveMetrics> | undefined;
try {
  metricsServer = config.metrics.port === undefined || values['shared-port'] ? undefined : serveMetrics(runtime.ctx, queueRegistry());
} catch (error) {
  logger.error(`could not listen for metrics on ${config.metrics.host}:${config.metrics.port}`, { error: (error as Error).message });
  await Promise.all([server?.stop(true), runtime.stop()]);
  process.exit(1);
}
const webProcesses =
  server && config.webConcurrency > 1 && !values['shared-port'] ? startWebProcesses(config.webConcurrency - 1, import.meta.path, logger) : undefined;
if (server && !values['shared-port']) {
  const base = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  process.stderr.write(
    `${[
      '',
      `  App Marketplace (${config.env}, role ${role}${webProcesses ? `, ${config.webConcurrency} API processes` : ''})`,
      `  API       ${base}/api/apps`,
      `  OpenAPI   ${base}/swagger`,
      `  Health    ${base}/readyz`,
      `  Admin     ${base}/admin  (admin e-mail and password; bun run cli admin:create adds admins)`,
      config.metrics.onMainPort ? `  Metrics   ${base}/metrics${config.metrics.token ? '  (bearer METRICS_TOKEN)' : ''}` : undefined,
      config.oauth.mode === 'dev' ? '  Sign in   bun run cli token --user <platformUserId>  (dev identity)' : '',
      '',
    ]
      .filter((line) => line !== undefined)
      .join('\n')}\n`,
  );
}

if (metricsServer)
  process.stderr.write(
    `  Metrics   http://${config.metrics.host.includes(':') ? `[${config.metrics.host}]` : config.metrics.host}:${config.metrics.port}/metrics  (role ${role})\n`,
  );

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info('shutting down', { signal });
  // Stop accepting, let in-flight requests finish, then release jobs and the database.
  await Promise.all([server?.stop(), metricsServer?.stop(), webProcesses?.stop()]);
  await runtime.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
