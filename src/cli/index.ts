// First: the ORM must find this registry when it loads (D198).
import '../lib/raw-fragment-registry.ts';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../lib/logger.ts';
import { startRuntime, type Runtime } from '../runtime.ts';
import { ApiError } from '../http/problem.ts';
import { CliUsageError, type CliCommand } from './command.ts';
import { identityCommands } from './commands/identity.ts';
import { appCommands } from './commands/apps.ts';
import { seed } from './commands/seed.ts';
import { outbox } from './commands/outbox.ts';
import { secretCommands } from './commands/secrets.ts';
import { teamCommands } from './commands/teams.ts';

/** `bun run cli <command>`. Every command is listed here. */
const commands: CliCommand[] = [...identityCommands, ...appCommands, ...teamCommands, seed, outbox, ...secretCommands];

function help(): string {
  const width = Math.max(...commands.map((c) => c.usage.length));
  return ['Usage: bun run cli <command> [options]', '', ...commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.description}`)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help') {
    process.stdout.write(`${help()}\n`);
    return name ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`Unknown command "${name}".\n\n${help()}\n`);
    return 2;
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, { component: 'cli' });
  const { values, positionals } = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true, strict: true });
  let runtime: Runtime | undefined;
  const interrupt = () => void runtime?.stop().finally(() => process.exit(130));
  process.once('SIGINT', interrupt).once('SIGTERM', interrupt);
  try {
    if (command.needsDatabase) {
      runtime = await startRuntime(config, logger, {
        role: 'api',
        migrate: command.name === 'db:migrate' ? true : undefined,
        jobs: command.name === 'db:migrate' || Boolean(command.enqueuesJobs),
      });
    }
    await command.run({
      positionals,
      values: values as Record<string, string | boolean | undefined>,
      config,
      logger,
      runtime,
      print: (line) => process.stdout.write(`${line}\n`),
    });
    return 0;
  } finally {
    await runtime?.stop();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const message =
    error instanceof ApiError
      ? `${error.detail} (${error.code})`
      : error instanceof CliUsageError || error instanceof ConfigError
        ? error.message
        : (error as Error).message;
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = 1;
}
