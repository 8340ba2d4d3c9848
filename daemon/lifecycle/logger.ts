/**
 * The daemon's log: one line per event on stderr, as text for people or as JSON lines for log
 * collectors (`--log-format json`). A detached daemon's stderr is its log file.
 */
import { isSpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';
import type { LogFormat } from '../config';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export function createLogger(format: LogFormat, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const debugEnabled = process.env.SPOOL_DEBUG === '1';
  const log = (given: LogLevel, message: string, fields: LogFields = {}): void => {
    // While the database is away every background task (upkeep, heartbeats, the scheduler) fails
    // the same way each time it tries; the store logs the outage once when it starts and once
    // when it ends, so these repeats are only worth a line when debugging.
    const level = given !== 'debug' && given !== 'info' && isStoreUnavailable(fields['error']) ? 'debug' : given;
    if (level === 'debug' && !debugEnabled) return;
    const at = new Date().toISOString();
    if (format === 'json') {
      write(JSON.stringify({ at, level, message, ...normalize(fields) }, bigints) + '\n');
      return;
    }
    const extra = Object.entries(normalize(fields))
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v, bigints)}`)
      .join(' ');
    write(`${at} ${level.padEnd(5)} ${message}${extra ? ' ' + extra : ''}\n`);
  };
  return {
    debug: (m, f) => log('debug', m, f),
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
  };
}

function isStoreUnavailable(error: unknown): boolean {
  return isSpoolError(error) && error.code === ErrorCode.StoreUnavailable;
}

/** BigInts as their digits (JSON.stringify refuses them). */
function bigints(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * A field JSON can encode as it is, or else its string form (a circular object, say — something
 * a handler threw): logging a failure must not itself fail its caller (an RPC answer, a task).
 */
function encodable(value: unknown): unknown {
  try {
    JSON.stringify(value, bigints);
    return value;
  } catch {
    return String(value);
  }
}

/** Errors do not survive JSON.stringify; log their message and stack instead. */
function normalize(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? { message: value.message, stack: value.stack } : encodable(value);
  }
  return out;
}
