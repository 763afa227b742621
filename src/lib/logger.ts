/** Structured JSON logs on stderr (stdout is kept for command output such as `cli token`). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
type Fields = Record<string, unknown>;

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  child(fields: Fields): Logger;
  /** Whether a line at `at` would be written (so hot paths can skip building it). */
  enabled(at: Exclude<LogLevel, 'silent'>): boolean;
}

export function createLogger(level: LogLevel, base: Fields = {}, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>, msg: string, fields?: Fields) => {
    if (rank[at] < rank[level]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...base, ...fields }, errorReplacer)}\n`);
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
    enabled: (at) => rank[at] >= rank[level],
  };
}

function errorReplacer(_key: string, value: unknown) {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}
