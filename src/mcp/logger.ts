import { processStderr } from '../shared/std-output.js';

/** Log levels, quietest first. `off` is the default: a server says nothing unless asked. */
export const LOG_LEVELS = ['off', 'error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

export type Logger = {
  readonly level: LogLevel;
  error(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  debug(event: string, fields?: LogFields): void;
};

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * A logger that writes one `key=value` line per event to `write` (stderr by default: stdout
 * belongs to JSON-RPC). Callers pass only names, ids, codes and timings, never arguments or results.
 *
 * @example
 * createLogger('debug').debug('request', { method: 'tools/call', id: 3, outcome: 'ok', ms: 2 })
 * // stderr: 2026-11-21T06:40:00.000Z debug request method=tools/call id=3 outcome=ok ms=2
 */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => processStderr().write(line),
): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const emit =
    (at: Exclude<LogLevel, 'off'>) =>
    (event: string, fields: LogFields = {}) => {
      if (LOG_LEVELS.indexOf(at) > threshold) return;
      const pairs = Object.entries(fields)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => `${key}=${formatValue(value)}`);
      write(`${new Date().toISOString()} ${at} ${[event, ...pairs].join(' ')}\n`);
    };
  return { level, error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}

function formatValue(value: string | number | boolean | undefined): string {
  const text = String(value);
  return /^[\w./:@-]*$/.test(text) && text.length > 0 ? text : JSON.stringify(text);
}
