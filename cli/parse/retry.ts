/**
 * Retry rules, expiry and deadlines from the command line: `--retry-on-exit 75`,
 * `--retry-never-exit 2`, `--retry-on-status 502,503`, `--retry-never-status 400`,
 * `--retry-on-error 'Timeout*'`, `--retry-never-error …` (each repeatable, codes also
 * comma-separated), `--expire-after 1h`, and `--deadline +6h` or a time. The rule's meaning is
 * shared/domain/rules/retry.ts's; this file only reads the options and names them in errors.
 */
import type { Command } from 'commander';
import type { RetryMatch, RetryRule } from '../../shared/protocol/types';
import { CliError } from '../errors';
import { parseDuration } from './duration';
import { parseStartTime } from './startTime';
import { collect, parseInteger } from './values';

export interface RetryOptionValues {
  retryOnExit?: string[];
  retryNeverExit?: string[];
  retryOnStatus?: string[];
  retryNeverStatus?: string[];
  retryOnError?: string[];
  retryNeverError?: string[];
}

/** The retry rule options, for `spool enqueue` and `spool queue NAME set`; `prefix` starts each description ("set: "). */
export function addRetryOptions(cmd: Command, prefix = ''): Command {
  return cmd
    .option('--retry-on-exit <codes>', `${prefix}retry only failures with these exit codes, e.g. 75 or 75,111 (repeatable); others are final`, collect)
    .option('--retry-never-exit <codes>', `${prefix}never retry failures with these exit codes, e.g. 2 (repeatable)`, collect)
    .option('--retry-on-status <codes>', `${prefix}retry only HTTP failures with these statuses, e.g. 502,503 (repeatable); others are final`, collect)
    .option('--retry-never-status <codes>', `${prefix}never retry HTTP failures with these statuses, e.g. 400,422 (repeatable)`, collect)
    .option('--retry-on-error <glob>', `${prefix}retry only failures whose error's first line matches, e.g. 'Timeout*' (repeatable)`, collect)
    .option('--retry-never-error <glob>', `${prefix}never retry failures whose error's first line matches (repeatable)`, collect);
}

function codes(values: readonly string[] | undefined, option: string, min: number, max: number): number[] | undefined {
  if (values === undefined || values.length === 0) return undefined;
  return values.flatMap((v) => v.split(',')).map((v) => parseInteger(v.trim(), option, min, max));
}

function matchOf(exit: number[] | undefined, status: number[] | undefined, errors: string[] | undefined): RetryMatch | undefined {
  const m: RetryMatch = {};
  if (exit !== undefined) m.exitCodes = exit;
  if (status !== undefined) m.httpStatus = status;
  if (errors !== undefined && errors.length > 0) m.errors = errors;
  return Object.keys(m).length === 0 ? undefined : m;
}

/** The rule the options give; undefined when none of them is given. */
export function resolveRetryRule(o: RetryOptionValues): RetryRule | undefined {
  const on = matchOf(codes(o.retryOnExit, '--retry-on-exit', 0, 255), codes(o.retryOnStatus, '--retry-on-status', 100, 999), o.retryOnError);
  const never = matchOf(codes(o.retryNeverExit, '--retry-never-exit', 0, 255), codes(o.retryNeverStatus, '--retry-never-status', 100, 999), o.retryNeverError);
  if (on === undefined && never === undefined) return undefined;
  return { ...(on === undefined ? {} : { on }), ...(never === undefined ? {} : { never }) };
}

/** `--deadline`: `+6h` from now (sent as a duration, so the daemon's clock counts it), or a time. */
export function parseDeadline(text: string, now = Date.now()): { deadlineMs: number } | { deadlineAt: number } {
  const trimmed = text.trim();
  if (trimmed.startsWith('+')) return { deadlineMs: parseDuration(trimmed.slice(1), '--deadline') };
  const { at } = parseStartTime(trimmed, '--deadline', now);
  if (at <= now) throw new CliError(`--deadline ${text} has passed: give a later time, or +6h for a time from now.`);
  return { deadlineAt: at };
}

/** `--expire-after`: a duration other than zero. */
export function parseExpireAfter(text: string): number {
  const ms = parseDuration(text, '--expire-after');
  if (ms === 0) throw new CliError('--expire-after must be longer than 0, e.g. 1h: how long the job may wait to start before it ends dead.');
  return ms;
}
