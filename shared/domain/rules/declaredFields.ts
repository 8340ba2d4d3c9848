/**
 * Fields a jobs file's declaration shares between its objects (a template's and a workflow
 * step's job options, parameter values), checked as `project.apply` and `workflows.run` receive
 * them.
 */
import { invalidParams } from '../../protocol/errors';
import type { JobOptions } from '../../protocol/types';
import { LIMITS } from '../../protocol';
import { isRecord } from '../records';
import { integer, join, object, shown, string } from '../validate';
import { optionalRetryRule } from './retry';
import { maxAttempts, partialBackoff, priority, tags, timeoutMs } from './jobs';
import { uniqueOptions } from './unique';

const JOB_OPTIONS = ['priority', 'maxAttempts', 'backoff', 'timeoutMs', 'tags', 'group'] as const;
const UNIQUE_OPTIONS = ['unique', 'debounce', 'throttle'] as const;
/** A template's too, never a workflow step's own (a step from a template leaves them out). */
const RETRY_OPTIONS = ['retry', 'expireAfterMs', 'deadlineMs'] as const;

/** An object whose keys are names the caller chose (parameters), each checked by the caller. */
export function anyKeys(value: unknown, field: string): Record<string, unknown> {
  if (!isRecord(value)) throw invalidParams(field, `${field} must be an object (got ${shown(value)})`, 'an object');
  return value;
}

/**
 * A job's options as a template or workflow step declares them; `unique`, `debounce` and
 * `throttle` only where `withUnique` (a template's: a workflow run's jobs are made once).
 */
export function jobOptionsOf(value: unknown, field: string, withUnique = false): JobOptions {
  const o = object(value, field, withUnique ? [...JOB_OPTIONS, ...UNIQUE_OPTIONS, ...RETRY_OPTIONS] : JOB_OPTIONS);
  const options: JobOptions = withUnique ? { ...uniqueOptions(o, field), ...retryOptions(o, field) } : {};
  if (o['priority'] !== undefined) options.priority = priority(o['priority'], join(field, 'priority'));
  if (o['maxAttempts'] !== undefined) options.maxAttempts = maxAttempts(o['maxAttempts'], join(field, 'maxAttempts'));
  if (o['backoff'] !== undefined) options.backoff = partialBackoff(o['backoff'], join(field, 'backoff'));
  if (o['timeoutMs'] !== undefined) options.timeoutMs = timeoutMs(o['timeoutMs'], join(field, 'timeoutMs'));
  if (o['tags'] !== undefined) options.tags = tags(o['tags'], join(field, 'tags'));
  // With {{param}} placeholders: the key is checked when they are filled in, at enqueue.
  if (o['group'] !== undefined) options.group = string(o['group'], join(field, 'group'), LIMITS.maxPayloadBytes, 1);
  return options;
}

/** A template's retry rule, expiry and deadline (from its enqueue), each checked as at enqueue. */
export function retryOptions(o: Record<string, unknown>, field: string): Pick<JobOptions, 'retry' | 'expireAfterMs' | 'deadlineMs'> {
  const out: Pick<JobOptions, 'retry' | 'expireAfterMs' | 'deadlineMs'> = {};
  const retry = optionalRetryRule(o['retry'], join(field, 'retry'));
  if (retry !== undefined) out.retry = retry;
  if (o['expireAfterMs'] !== undefined) out.expireAfterMs = integer(o['expireAfterMs'], join(field, 'expireAfterMs'), 1, LIMITS.maxDurationMs);
  if (o['deadlineMs'] !== undefined) out.deadlineMs = integer(o['deadlineMs'], join(field, 'deadlineMs'), 1, LIMITS.maxDurationMs);
  return out;
}

/** Parameter values: an object of strings. */
export function paramValues(value: unknown, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, raw] of Object.entries(anyKeys(value, field))) {
    out[key] = string(raw, join(field, key), LIMITS.maxPayloadBytes);
  }
  return out;
}
