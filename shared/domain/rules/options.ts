/**
 * A job's and a queue's options as people type them, one value at a time: the CLI's
 * `--priority 5` and the editor's `priority=5`. Each is held to the daemon's bound (LIMITS) and refused in the daemon's
 * words ("<field> must be an integer from -1000 to 1000 (got 5000)"), so the CLI, the editor and
 * the daemon answer the same value with the same sentence. `field` is how the caller's user
 * names the option ("--priority", "priority"). Durations use the one syntax of ../durations.
 */
import { SpoolError } from '../../protocol/errors';
import { LIMITS } from '../../protocol';
import { formatDuration, parseDuration } from '../durations';
import { parsed, refused, type Parsed } from '../parsed';
import { integer, mustBe, shown } from '../validate';
import { MAX_CONCURRENCY } from './limits';

/** Lowest and highest value of each option that takes a number or a duration. */
export const OPTION_RANGES = {
  priority: { min: LIMITS.minPriority, max: LIMITS.maxPriority },
  attempts: { min: 1, max: LIMITS.maxAttempts },
  weight: { min: 1, max: LIMITS.maxWeight },
  timeoutMs: { min: LIMITS.minTimeoutMs, max: LIMITS.maxTimeoutMs },
  delayMs: { min: 0, max: LIMITS.maxDurationMs },
  concurrency: { min: 1, max: MAX_CONCURRENCY },
} as const;

/** An integer typed as text, within `min`..`max`. */
export function integerText(text: string, field: string, min: number, max: number): Parsed<number> {
  const trimmed = text.trim();
  // Only a plain decimal integer is read as a number: "1e3", "0x10" and "" stay text, and are
  // shown as the text that was typed.
  const value: unknown = /^-?\d+$/.test(trimmed) ? Number(trimmed) : text;
  try {
    return parsed(integer(value, field, min, max));
  } catch (error) {
    if (error instanceof SpoolError) return refused(error.message);
    throw error;
  }
}

/** What a duration option allows, in words: the jobs file's diagnostics say it the same way. */
export function durationRule(minMs: number, maxMs: number): string {
  return `a duration from ${formatDuration(minMs)} to ${formatDuration(maxMs)}`;
}

/** A duration typed as text, in milliseconds within `minMs`..`maxMs`. */
export function durationText(text: string, field: string, minMs: number, maxMs: number): Parsed<number> {
  const ms = parseDuration(text);
  if (!ms.ok) return refused(`${field} is not a duration: ${ms.message} (got ${shown(text)})`);
  if (ms.value < minMs || ms.value > maxMs) return refused(mustBe(field, durationRule(minMs, maxMs), shown(text)));
  return ms;
}

/** A job's priority: higher runs first. */
export function priorityText(text: string, field = 'priority'): Parsed<number> {
  return integerText(text, field, OPTION_RANGES.priority.min, OPTION_RANGES.priority.max);
}

/** How many times a job is tried before it is dead. */
export function attemptsText(text: string, field = 'attempts'): Parsed<number> {
  return integerText(text, field, OPTION_RANGES.attempts.min, OPTION_RANGES.attempts.max);
}

/** A job's lease: how long one attempt may run without a sign of life. */
export function timeoutText(text: string, field = 'timeout'): Parsed<number> {
  return durationText(text, field, OPTION_RANGES.timeoutMs.min, OPTION_RANGES.timeoutMs.max);
}

/** How many of a queue's jobs may run at once. */
export function concurrencyText(text: string, field = 'concurrency'): Parsed<number> {
  return integerText(text, field, OPTION_RANGES.concurrency.min, OPTION_RANGES.concurrency.max);
}

/** How long a job waits before it may run. */
export function delayText(text: string, field = 'delay'): Parsed<number> {
  return durationText(text, field, OPTION_RANGES.delayMs.min, OPTION_RANGES.delayMs.max);
}
