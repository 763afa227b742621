import pino from 'pino';
import { redact, redactText } from './redact.ts';

/**
 * Structured JSON logs on stderr (stdout is kept for command output such as `cli token`),
 * through pino, with every line passed through `redact` so no key, token, password, webhook
 * secret or URL credential reaches a log.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
type Fields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  child(fields: Fields): Logger;
  /** Whether a line at `at` would be written (so hot paths can skip building it). */
  enabled(at: Exclude<LogLevel, 'silent'>): boolean;
}

function wrap(instance: pino.Logger): Logger {
  return {
    debug: (msg, fields) => instance.debug(fields ?? {}, redactText(msg)),
    info: (msg, fields) => instance.info(fields ?? {}, redactText(msg)),
    warn: (msg, fields) => instance.warn(fields ?? {}, redactText(msg)),
    error: (msg, fields) => instance.error(fields ?? {}, redactText(msg)),
    child: (fields) => wrap(instance.child(redact(fields) as Fields)),
    enabled: (at) => instance.isLevelEnabled(at),
  };
}

/**
 * Lines for stderr, written together once per turn of the event loop (and at exit): under load the
 * access log costs one write for many requests, not a write each, and no request waits for one.
 */
function bufferedStderr(): (line: string) => void {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    process.stderr.write(text);
  };
  process.on('exit', flush);
  return (line) => {
    if (pending.push(line) === 1) setImmediate(flush);
  };
}

export function createLogger(level: LogLevel, base: Fields = {}, write: (line: string) => void = bufferedStderr()): Logger {
  const instance = pino(
    {
      level,
      base: redact(base) as Fields,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redact(object) as Record<string, unknown>,
      },
    },
    { write },
  );
  return wrap(instance);
}
