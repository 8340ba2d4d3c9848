/**
 * Option values other than durations: JSON payloads (inline, `@file` or `-` for stdin),
 * points in time, integers, job states, rate limits.
 */
import { readFileSync } from 'node:fs';
import * as rates from '../../shared/domain/rates';
import { integerText } from '../../shared/domain/rules/options';
import type { Parsed } from '../../shared/domain/parsed';
import { JOB_STATES, type JobState, type RateLimit } from '../../shared/protocol/types';
import { CliError } from '../errors';
import { parseDuration } from './duration';
import { errorMessage } from '../../shared/protocol/errors';

/** Reads all of stdin; used for `-` arguments. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** `{"json": true}`, `@path/to/file.json`, or `-` for stdin. */
export async function parseJsonArgument(text: string, what: string): Promise<unknown> {
  let source = text;
  let from = '';
  if (text === '-') {
    source = await readStdin();
    from = ' (from stdin)';
  } else if (text.startsWith('@')) {
    const file = text.slice(1);
    try {
      source = readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliError(`Cannot read ${what} from ${file}: ${errorMessage(error)}.`);
    }
    from = ` (from ${file})`;
  }
  try {
    return JSON.parse(source);
  } catch (error) {
    const reason = errorMessage(error);
    throw new CliError(`Invalid JSON in ${what}${from}: ${reason}. Quote it for the shell, e.g. '{"size": 3}'.`);
  }
}

/** An ISO 8601 date/time (`2026-05-01T09:00`, `2026-05-01 09:00Z`) or `+30m` from now. */
export function parseTime(text: string, what: string, now = Date.now()): number {
  if (text.startsWith('+')) return now + parseDuration(text.slice(1), what);
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw new CliError(`Invalid time "${text}" for ${what}: use an ISO date and time such as 2026-05-01T09:00 or +30m.`);
  return t;
}

/** An integer option (`what` names it, "--priority"), refused in the daemon's words for the same value. */
export function parseInteger(text: string, what: string, min: number, max: number): number {
  return orFail(integerText(text, what, min, max));
}

/** The value of a domain check, or its message as the CLI's error. */
export function orFail<T>(result: Parsed<T>): T {
  if (!result.ok) throw new CliError(result.message);
  return result.value;
}

/** `--state dead`, `--state queued,retrying`, or the option repeated. */
export function parseStates(values: string[]): JobState[] {
  const states: JobState[] = [];
  for (const v of values.flatMap((s) => s.split(','))) {
    const name = v.trim();
    const state = JOB_STATES.find((s) => s === name);
    if (!state) throw new CliError(`Unknown job state "${name}": use one of ${JOB_STATES.join(', ')}.`);
    states.push(state);
  }
  return states;
}

/** `--queue a`, `--queue a,b`, or the option repeated: the names, each once, in the order given. */
export function parseQueues(values: string[]): string[] {
  const names = values.flatMap((s) => s.split(',')).map((s) => s.trim());
  if (names.some((name) => name === '')) throw new CliError(`--queue needs queue names separated by commas, e.g. --queue builds,images (got "${values.join(',')}").`);
  return [...new Set(names)];
}

/** A rate limit in shared/domain's syntax (`10/s`, `600/m`, `10/s burst 20`, `off`); null removes the limit. */
export function parseRate(text: string): RateLimit | null {
  const rate = rates.parseRate(text);
  if (!rate.ok) throw new CliError(`Invalid rate "${text}": ${rate.message}.`);
  return rate.value;
}

/** Collects a repeatable option into an array (commander's reducer). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
