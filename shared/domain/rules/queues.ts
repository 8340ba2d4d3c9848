/**
 * Validation of the queue methods' params.
 */
import { invalidParams } from '../../protocol/errors';
import { LIMITS } from '../../protocol';
import { JOB_STATES, type Backoff, type JobState, type RateLimit } from '../../protocol/types';
import { groupKey, maxAttempts, partialBackoff, timeoutMs } from './jobs';
import { MAX_CONCURRENCY, MAX_RATE } from './limits';
import { resourceLimits } from './payloads';
import { optionalRetryRule } from './retry';
import type { RetryRule } from '../../protocol/types';
import type { ResourceLimitChanges } from '../../protocol';
import { AGEING_FORM, parseAgeing, type Ageing } from '../ageing';
import { array, boolean, integer, name, number, object, oneOf } from '../validate';

export interface ConfigureInput {
  name: string;
  concurrency: number | null | undefined;
  rateLimit: RateLimit | null | undefined;
  defaultMaxAttempts: number | undefined;
  defaultBackoff: Partial<Backoff> | undefined;
  defaultTimeoutMs: number | undefined;
  retentionMs: number | null | undefined;
  /** undefined = leave as they are, null = remove them all; within, a null field removes that limit. */
  limits: ResourceLimitChanges | null | undefined;
  groupConcurrency: number | null | undefined;
  groupRate: RateLimit | null | undefined;
  /** undefined = leave as they are, null = plain round-robin. */
  groupWeights: Record<string, number> | null | undefined;
  /** undefined = leave as it is, null = remove it. */
  retry?: RetryRule | null;
  /** undefined = leave as it is, null = remove it. */
  defaultExpireAfterMs?: number | null;
  /** Priority ageing; undefined = leave as it is, null = off. */
  ageing?: Ageing | null;
}

export { MAX_CONCURRENCY };

export function rateLimit(value: unknown, field = 'rateLimit'): RateLimit | null {
  if (value === null) return null;
  const o = object(value, field, ['perSecond', 'burst']);
  if (o['perSecond'] === undefined) throw invalidParams(`${field}.perSecond`, `${field}.perSecond is required (jobs started per second, e.g. 5 or 0.5)`);
  const perSecond = number(o['perSecond'], `${field}.perSecond`, 0.001, MAX_RATE);
  // Default burst: one second's worth, at least one job.
  const burst = o['burst'] === undefined ? Math.max(1, Math.ceil(perSecond)) : integer(o['burst'], `${field}.burst`, 1, MAX_RATE);
  return { perSecond, burst };
}

/** undefined = leave as is, null = remove the setting, anything else is checked. */
function nullable<T>(value: unknown, check: (value: unknown) => T): T | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  return check(value);
}

export function configureParams(value: unknown): ConfigureInput {
  const o = object(value, 'params', [
    'name', 'concurrency', 'rateLimit', 'defaultMaxAttempts', 'defaultBackoff', 'defaultTimeoutMs', 'retentionMs', 'limits',
    'groupConcurrency', 'groupRate', 'groupWeights', 'retry', 'defaultExpireAfterMs', 'ageing',
  ]);
  const ageing = nullable(o['ageing'], (v) => ageingValue(v, 'ageing'));
  const retry = optionalRetryRule(o['retry'], 'retry');
  const defaultExpireAfterMs = nullable(o['defaultExpireAfterMs'], (v) => integer(v, 'defaultExpireAfterMs', 1, LIMITS.maxDurationMs));
  return {
    ...(retry === undefined ? {} : { retry }),
    ...(defaultExpireAfterMs === undefined ? {} : { defaultExpireAfterMs }),
    ...(ageing === undefined ? {} : { ageing }),
    name: name(o['name'], 'name'),
    concurrency: nullable(o['concurrency'], (v) => integer(v, 'concurrency', 1, MAX_CONCURRENCY)),
    rateLimit: o['rateLimit'] === undefined ? undefined : rateLimit(o['rateLimit']),
    defaultMaxAttempts: o['defaultMaxAttempts'] === undefined ? undefined : maxAttempts(o['defaultMaxAttempts'], 'defaultMaxAttempts'),
    defaultBackoff: o['defaultBackoff'] === undefined ? undefined : defaultBackoff(o['defaultBackoff']),
    defaultTimeoutMs: o['defaultTimeoutMs'] === undefined ? undefined : timeoutMs(o['defaultTimeoutMs'], 'defaultTimeoutMs'),
    retentionMs: nullable(o['retentionMs'], (v) => integer(v, 'retentionMs', 0, LIMITS.maxDurationMs)),
    limits: nullable(o['limits'], limitChanges),
    groupConcurrency: nullable(o['groupConcurrency'], (v) => integer(v, 'groupConcurrency', 1, MAX_CONCURRENCY)),
    groupRate: o['groupRate'] === undefined ? undefined : rateLimit(o['groupRate'], 'groupRate'),
    groupWeights: nullable(o['groupWeights'], (v) => groupWeights(v, 'groupWeights')),
  };
}

/** Priority ageing given as text (`"1 per 10m"`; `"off"` is null), checked. */
export function ageingValue(value: unknown, field: string): Ageing | null {
  if (typeof value !== 'string') throw invalidParams(field, `${field} must be a string: ${AGEING_FORM} (got ${JSON.stringify(value)})`, AGEING_FORM);
  const ageing = parseAgeing(value);
  if (!ageing.ok) throw invalidParams(field, `${field} ${JSON.stringify(value)} is not valid: ${ageing.message}`, AGEING_FORM);
  return ageing.value;
}

/** Fairness weights by group key: each key a group key, each weight 1..1000; {} means none (null). */
export function groupWeights(value: unknown, field: string): Record<string, number> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidParams(field, `${field} must be an object of group keys to weights, e.g. {"customer:1": 3} (got ${JSON.stringify(value)})`, 'an object');
  }
  const entries = Object.entries(value);
  if (entries.length > LIMITS.maxGroupWeights) throw invalidParams(field, `${field} names ${entries.length} groups; at most ${LIMITS.maxGroupWeights} are allowed`, `at most ${LIMITS.maxGroupWeights} groups`);
  const weights: Record<string, number> = {};
  for (const [key, weight] of entries) {
    groupKey(key, `${field} key ${JSON.stringify(key)}`);
    weights[key] = integer(weight, `${field}.${key}`, 1, LIMITS.maxWeight);
  }
  return entries.length === 0 ? null : weights;
}

/** `limits`: each field a limit as a shell payload's `limits` takes it, or null to remove it. */
function limitChanges(value: unknown): ResourceLimitChanges {
  const o = object(value, 'limits', ['memoryBytes', 'cpuSeconds', 'openFiles', 'processes']);
  const given = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
  const changes: ResourceLimitChanges = resourceLimits(given, 'limits');
  for (const key of ['memoryBytes', 'cpuSeconds', 'openFiles', 'processes'] as const) if (o[key] === null) changes[key] = null;
  return changes;
}

/** Unlike a limit, a queue's backoff cannot be removed: null is refused, not read as "no change". */
function defaultBackoff(value: unknown): Partial<Backoff> {
  if (value === null) {
    throw invalidParams('defaultBackoff', 'defaultBackoff cannot be null: a queue always has a backoff. Give the fields to change (strategy, baseMs, capMs, jitter).', 'an object');
  }
  return partialBackoff(value, 'defaultBackoff');
}

export function queueName(value: unknown, field = 'name'): string {
  return name(value, field);
}

/** Running jobs are never purged; "all but running" is the default. */
export function purgeParams(value: unknown): { name: string; states: JobState[] } {
  const o = object(value, 'params', ['name', 'states']);
  const purgeable = JOB_STATES.filter((s) => s !== 'running');
  const states = o['states'] === undefined ? purgeable : array(o['states'], 'states', JOB_STATES.length, 1).map((s, i) => oneOf(s, `states[${i}]`, purgeable));
  return { name: name(o['name'], 'name'), states: [...new Set(states)] };
}

export function deleteQueueParams(value: unknown): { name: string; force: boolean } {
  const o = object(value, 'params', ['name', 'force']);
  return { name: name(o['name'], 'name'), force: o['force'] === undefined ? false : boolean(o['force'], 'force') };
}

/** What `queues.groups` lists. */
export interface GroupsInput {
  name: string;
  limit: number;
  /** The stored key to continue after ('' = the jobs without a group); null = from the first. */
  after: string | null;
  atLimit: boolean;
}

export function groupsParams(value: unknown): GroupsInput {
  const o = object(value, 'params', ['name', 'limit', 'after', 'atLimit']);
  // '' continues after the jobs without a group, which sort first: the nextAfter such a page gives.
  const after = o['after'] === undefined ? null : o['after'] === '' ? '' : groupKey(o['after'], 'after');
  return {
    name: name(o['name'], 'name'),
    limit: o['limit'] === undefined ? 100 : integer(o['limit'], 'limit', 1, LIMITS.maxPageSize),
    after,
    atLimit: o['atLimit'] === undefined ? false : boolean(o['atLimit'], 'atLimit'),
  };
}
