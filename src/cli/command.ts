import type { ParseArgsConfig } from 'node:util';
import type { Config } from '../config.ts';
import type { Logger } from '../lib/logger.ts';
import type { Runtime } from '../runtime.ts';

/**
 * A CLI command. Commands share the domain services with the server and reach the same
 * database (the running embedded one included). Output contract: results on stdout,
 * logs on stderr, failure exits non-zero with a clear message.
 */
export interface CliCommand {
  name: string;
  usage: string;
  description: string;
  options?: ParseArgsConfig['options'];
  /** Whether the command needs the database (and so a runtime). */
  needsDatabase?: boolean;
  /** Whether the command enqueues jobs (starts pg-boss without workers). */
  enqueuesJobs?: boolean;
  run(input: CliInput): Promise<void>;
}

export interface CliInput {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
  config: Config;
  logger: Logger;
  /** Present when `needsDatabase`. */
  runtime?: Runtime;
  print(line: string): void;
}

export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

export function requireString(values: CliInput['values'], name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.length === 0) throw new CliUsageError(`--${name} is required`);
  return value;
}

export function requirePositional(positionals: string[], what: string): string {
  const value = positionals[0];
  if (!value) throw new CliUsageError(`Name the ${what}`);
  return value;
}

export const runtimeOf = (input: CliInput): Runtime => {
  if (!input.runtime) throw new Error('This command needs the database');
  return input.runtime;
};
