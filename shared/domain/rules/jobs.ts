/**
 * Validation of the job methods' params: enqueue, update, list, output and the bulk forms.
 */
import { invalidParams } from '../../protocol/errors';
import { LIMITS, type JobFilter, type JobOrder } from '../../protocol';
import { DEPENDENCY_CONDITIONS, JOB_STATES, type Backoff, type BackoffStrategy, type DependencyCondition } from '../../protocol/types';
import {
  array,
  integer,
  jobId,
  jsonText,
  mustBe,
  name,
  number,
  object,
  oneOf,
  optionalBoolean,
  optionalInteger,
  optionalName,
  optionalString,
  requiredObject,
  shown,
  string,
  join,
  type Fields,
} from '../validate';
import { MAX_CONTEXT_FIELD } from './limits';
import { isRecord } from '../records';
import { builtinPayload, HTTP_EDIT_FIELDS, SHELL_EDIT_FIELDS, type PayloadEdits } from './payloads';
import { uniqueRuleParams, type UniqueRule } from './unique';
import { optionalRetryRule } from './retry';
import type { RetryRule } from '../../protocol/types';

const STRATEGIES: readonly BackoffStrategy[] = ['exponential', 'linear', 'fixed'];
/** Latest accepted absolute time: year 275760 is where JS dates end; anything near it is a mistake anyway. */
const MAX_TIME = 8_640_000_000_000_000;

export interface EnqueueInput {
  queue: string;
  kind: string;
  /** Serialized JSON. */
  payload: string;
  priority: number;
  /** 1..LIMITS.maxWeight; 1 unless given. */
  weight: number;
  delayMs: number | undefined;
  runAt: number | undefined;
  maxAttempts: number | undefined;
  backoff: Partial<Backoff>;
  /**
   * How errors name the job's backoff ("backoff", "jobs[2].backoff"), for the check that needs
   * the queue's defaults and so runs at insert. Null for a schedule's job: its template was
   * checked when the schedule was stored, and a schedule that stopped firing over a queue
   * setting changed since would be worse than a backoff held at its cap.
   */
  backoffField: string | null;
  timeoutMs: number | undefined;
  /** Serialized JSON array. */
  tags: string;
  idempotencyKey: string | null;
  /** Serialized JSON object or null. */
  context: string | null;
  /** The jobs it waits for, each named once, with the field that named it (for errors). */
  dependsOn: DependencyInput[];
  /**
   * In `jobs.enqueueBatch`: the earlier jobs of the same batch it waits for, by position (the
   * enqueue resolves them to ids). Absent elsewhere.
   */
  batchDependsOn?: BatchDependencyInput[];
  /** Its `unique`, `debounce` or `throttle`, defaults filled in; absent when none. */
  unique?: UniqueRule;
  /** Its group key, or null (also what `unique.by`'s "group" compares). */
  group: string | null;
  /** Its own retry rule; undefined to take its queue's (null: none, whatever the queue says). */
  retry?: RetryRule | null;
  /** It ends dead if not started within this long of its enqueue; undefined for its queue's default. */
  expireAfterMs?: number;
  /** No retry after this time (epoch ms). */
  deadlineAt?: number;
  /** No retry after this long from its enqueue (the job's creation time: the same clock reading). */
  deadlineMs?: number;
}

/** A dependency on an earlier job of the same batch, by its position in the batch. */
export interface BatchDependencyInput {
  index: number;
  on: DependencyCondition;
  /** How errors name it: "jobs[2].dependsOn[0]". */
  field: string;
}

/** One dependency of a job to enqueue. */
export interface DependencyInput {
  id: string;
  on: DependencyCondition;
  /** How errors name it: "dependsOn[2]", "jobs[0].dependsOn[1]". */
  field: string;
}

const ENQUEUE_FIELDS = [
  'queue', 'kind', 'payload', 'priority', 'weight', 'delayMs', 'runAt', 'maxAttempts', 'backoff', 'timeoutMs', 'tags', 'idempotencyKey', 'context', 'dependsOn',
  'unique', 'debounce', 'throttle', 'retry', 'expireAfterMs', 'deadlineAt', 'deadlineMs', 'group',
] as const;

/** What a group key allows, in words (the CLI and the jobs file say the same). */
export const GROUP_RULE = `1 to ${LIMITS.maxGroupLength} characters of letters, digits, ":", ".", "_", "-", "@" or "/"`;
const GROUP_PATTERN = new RegExp(`^[A-Za-z0-9:._@/-]{1,${LIMITS.maxGroupLength}}$`);

/** A job's group key ("customer:42"). */
export function groupKey(value: unknown, field: string): string {
  if (typeof value !== 'string' || !GROUP_PATTERN.test(value)) {
    throw invalidParams(field, mustBe(field, GROUP_RULE, value === '' ? 'an empty string' : shown(value)), GROUP_RULE);
  }
  return value;
}

/** `dependsOn`: ids, or `{ id, on }`; each job at most once. */
export function dependsOnParam(value: unknown, field: string): DependencyInput[] {
  return dependsOnItems(value, field, undefined).dependsOn;
}

/**
 * `dependsOn` of the job at `position` of a batch: as in `jobs.enqueue`, and `{ index, on }`
 * naming an earlier job of the batch (0 to position - 1); each job at most once.
 */
export function batchDependsOnParam(value: unknown, field: string, position: number): { dependsOn: DependencyInput[]; batchDependsOn: BatchDependencyInput[] } {
  return dependsOnItems(value, field, position);
}

function dependsOnItems(value: unknown, field: string, position: number | undefined): { dependsOn: DependencyInput[]; batchDependsOn: BatchDependencyInput[] } {
  const dependsOn: DependencyInput[] = [];
  const batchDependsOn: BatchDependencyInput[] = [];
  if (value === undefined || value === null) return { dependsOn, batchDependsOn };
  const seen = new Set<string>();
  array(value, field, LIMITS.maxDependencies).forEach((item, i) => {
    const at = `${field}[${i}]`;
    if (typeof item === 'string') {
      const id = jobId(item, at).toLowerCase();
      if (seen.has(id)) throw invalidParams(at, `${at} names job ${id} again: name each job once`, 'each job once');
      seen.add(id);
      dependsOn.push({ id, on: 'succeeded', field: at });
      return;
    }
    if (position === undefined && isRecord(item) && 'index' in item) {
      throw invalidParams(join(at, 'index'), `${join(at, 'index')} names a job of the same batch, which only jobs.enqueueBatch has; here name the job by its id`, 'id, on');
    }
    const o = requiredObject(item, at, position === undefined ? ['id', 'on'] : ['id', 'index', 'on']);
    const on = o['on'] === undefined ? 'succeeded' : oneOf(o['on'], join(at, 'on'), DEPENDENCY_CONDITIONS);
    if (position !== undefined && o['index'] !== undefined) {
      if (o['id'] !== undefined) throw invalidParams(at, `Give either ${join(at, 'id')} or ${join(at, 'index')}, not both`, 'id or index');
      const index = batchIndex(o['index'], join(at, 'index'), position);
      if (seen.has(`#${index}`)) throw invalidParams(at, `${at} names job ${index} of the batch again: name each job once`, 'each job once');
      seen.add(`#${index}`);
      batchDependsOn.push({ index, on, field: at });
      return;
    }
    const id = jobId(o['id'], join(at, 'id')).toLowerCase();
    if (seen.has(id)) throw invalidParams(at, `${at} names job ${id} again: name each job once`, 'each job once');
    seen.add(id);
    dependsOn.push({ id, on, field: at });
  });
  return { dependsOn, batchDependsOn };
}

/** The position of an earlier job of the batch, for the job at `position`. */
function batchIndex(value: unknown, field: string, position: number): number {
  if (position === 0) throw invalidParams(field, `${field}: the first job of a batch has no earlier job to depend on`, 'the index of an earlier job of the batch');
  const expected = `0 to ${position - 1}, the position of an earlier job of the batch`;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= position) {
    throw invalidParams(field, `${field} must be ${expected} (a job can depend only on jobs before it in the batch); got ${JSON.stringify(value)}`, expected);
  }
  return value;
}

export function partialBackoff(value: unknown, field: string): Partial<Backoff> {
  const o = object(value, field, ['strategy', 'baseMs', 'capMs', 'jitter']);
  const backoff: Partial<Backoff> = {};
  if (o['strategy'] !== undefined) backoff.strategy = oneOf(o['strategy'], join(field, 'strategy'), STRATEGIES);
  if (o['baseMs'] !== undefined) backoff.baseMs = integer(o['baseMs'], join(field, 'baseMs'), 0, LIMITS.maxDurationMs);
  if (o['capMs'] !== undefined) backoff.capMs = integer(o['capMs'], join(field, 'capMs'), 0, LIMITS.maxDurationMs);
  if (o['jitter'] !== undefined) backoff.jitter = number(o['jitter'], join(field, 'jitter'), 0, 1);
  return backoff;
}

/**
 * A backoff completed from its defaults (the queue's, for a job), refused if its cap is below
 * its base: such a backoff would wait the cap every time, which is never what was meant.
 * `field` names the partial backoff the caller gave ("backoff", "defaultBackoff").
 */
export function mergedBackoff(defaults: Backoff, given: Partial<Backoff>, field: string): Backoff {
  const backoff = { ...defaults, ...given };
  if (backoff.capMs < backoff.baseMs) {
    const capField = join(field, 'capMs');
    const baseSource = given.baseMs === undefined ? 'the default baseMs' : join(field, 'baseMs');
    throw invalidParams(capField, `${capField} (${backoff.capMs}) must be at least ${baseSource} (${backoff.baseMs}); raise the cap or lower the base`, '>= baseMs');
  }
  return backoff;
}

export function priority(value: unknown, field: string): number {
  return integer(value, field, LIMITS.minPriority, LIMITS.maxPriority);
}

/** A job's weight: how much of its queue's concurrency and its worker's capacity it takes. */
export function weight(value: unknown, field: string): number {
  return integer(value, field, 1, LIMITS.maxWeight);
}

export function maxAttempts(value: unknown, field: string): number {
  return integer(value, field, 1, LIMITS.maxAttempts);
}

export function timeoutMs(value: unknown, field: string): number {
  return integer(value, field, LIMITS.minTimeoutMs, LIMITS.maxTimeoutMs);
}

export function tags(value: unknown, field: string): string[] {
  return array(value, field, LIMITS.maxTags).map((tag, i) => string(tag, `${field}[${i}]`, LIMITS.maxTagLength, 1));
}

function context(value: unknown, field: string): string | null {
  if (value === undefined) return null;
  const o = object(value, field, ['workspace', 'branch', 'commit', 'origin']);
  const out: Record<string, string> = {};
  for (const key of ['workspace', 'branch', 'commit', 'origin']) {
    const v = optionalString(o[key], join(field, key), MAX_CONTEXT_FIELD);
    if (v !== undefined) out[key] = v;
  }
  return JSON.stringify(out);
}

/**
 * A job's run time: `delayMs` from now, or `runAt`. Both are held to the same horizon, at most
 * LIMITS.maxDurationMs (10 years) ahead of `now`: a runAt further out is as surely a mistake (a
 * time in microseconds, a year typed wrong) as a delay that long.
 */
function runTime(o: Fields, prefix: string, now: number): { delayMs: number | undefined; runAt: number | undefined } {
  const delayMs = optionalInteger(o['delayMs'], join(prefix, 'delayMs'), 0, LIMITS.maxDurationMs);
  const runAt = optionalInteger(o['runAt'], join(prefix, 'runAt'), 0, MAX_TIME);
  if (runAt !== undefined && runAt > now + LIMITS.maxDurationMs) {
    const field = join(prefix, 'runAt');
    throw invalidParams(
      field,
      `${field} must be at most 10 years from now (at most ${now + LIMITS.maxDurationMs}, epoch ms; got ${runAt}); is it in seconds or microseconds instead of milliseconds?`,
      `epoch ms up to ${now + LIMITS.maxDurationMs}`,
    );
  }
  if (delayMs !== undefined && runAt !== undefined) {
    throw invalidParams(join(prefix, 'runAt'), `Give either ${join(prefix, 'delayMs')} or ${join(prefix, 'runAt')}, not both`, 'delayMs or runAt');
  }
  return { delayMs, runAt };
}

/** `prefix` is '' for jobs.enqueue and "jobs[i]" inside a batch; `now` bounds runAt. */
export function enqueueParams(value: unknown, now: number, prefix = ''): EnqueueInput {
  const o = prefix === '' ? object(value, 'params', ENQUEUE_FIELDS) : requiredObject(value, prefix, ENQUEUE_FIELDS);
  const f = (key: string): string => join(prefix, key);
  const queue = name(o['queue'], f('queue'));
  const kind = name(o['kind'], f('kind'));
  const payloadValue = o['payload'] === undefined ? null : o['payload'];
  const payload = jsonText(payloadValue, f('payload'));
  builtinPayload(kind, payloadValue, f('payload'));
  const { delayMs, runAt } = runTime(o, prefix, now);
  return {
    queue,
    kind,
    payload,
    priority: o['priority'] === undefined ? 0 : priority(o['priority'], f('priority')),
    weight: o['weight'] === undefined ? 1 : weight(o['weight'], f('weight')),
    delayMs,
    runAt,
    maxAttempts: o['maxAttempts'] === undefined ? undefined : maxAttempts(o['maxAttempts'], f('maxAttempts')),
    backoff: partialBackoff(o['backoff'], f('backoff')),
    backoffField: f('backoff'),
    timeoutMs: o['timeoutMs'] === undefined ? undefined : timeoutMs(o['timeoutMs'], f('timeoutMs')),
    tags: JSON.stringify(o['tags'] === undefined ? [] : tags(o['tags'], f('tags'))),
    idempotencyKey: o['idempotencyKey'] === undefined ? null : string(o['idempotencyKey'], f('idempotencyKey'), LIMITS.maxIdempotencyKeyLength, 1),
    context: context(o['context'], f('context')),
    dependsOn: dependsOnParam(o['dependsOn'], f('dependsOn')),
    group: o['group'] === undefined || o['group'] === null ? null : groupKey(o['group'], f('group')),
    ...uniqueOf(o, prefix),
    ...expiryFields(o, prefix, now),
  };
}

/** The `unique` field of an EnqueueInput, present only when the params have a rule. */
function uniqueOf(o: Fields, prefix: string): { unique?: UniqueRule } {
  const unique = uniqueRuleParams(o, prefix);
  return unique === undefined ? {} : { unique };
}

/**
 * `retry`, `expireAfterMs`, and the deadline as `deadlineAt` (epoch ms) or `deadlineMs` (from
 * now); each only when given, so that a job without them reads as before.
 */
function expiryFields(o: Fields, prefix: string, now: number): Pick<EnqueueInput, 'retry' | 'expireAfterMs' | 'deadlineAt' | 'deadlineMs'> {
  const out: Pick<EnqueueInput, 'retry' | 'expireAfterMs' | 'deadlineAt' | 'deadlineMs'> = {};
  const retry = optionalRetryRule(o['retry'], join(prefix, 'retry'));
  if (retry !== undefined) out.retry = retry;
  const expireAfterMs = optionalInteger(o['expireAfterMs'], join(prefix, 'expireAfterMs'), 1, LIMITS.maxDurationMs);
  if (expireAfterMs !== undefined) out.expireAfterMs = expireAfterMs;
  const deadlineAt = optionalInteger(o['deadlineAt'], join(prefix, 'deadlineAt'), 0, now + LIMITS.maxDurationMs);
  const deadlineMs = optionalInteger(o['deadlineMs'], join(prefix, 'deadlineMs'), 1, LIMITS.maxDurationMs);
  if (deadlineAt !== undefined && deadlineMs !== undefined) {
    throw invalidParams(join(prefix, 'deadlineAt'), `Give either ${join(prefix, 'deadlineAt')} or ${join(prefix, 'deadlineMs')}, not both`, 'deadlineAt or deadlineMs');
  }
  if (deadlineAt !== undefined) out.deadlineAt = deadlineAt;
  if (deadlineMs !== undefined) out.deadlineMs = deadlineMs;
  return out;
}

export function enqueueBatchParams(value: unknown, now: number): EnqueueInput[] {
  const o = object(value, 'params', ['jobs']);
  return array(o['jobs'], 'jobs', LIMITS.maxBatch, 1).map((job, i) => {
    const prefix = `jobs[${i}]`;
    const { dependsOn: _dependsOn, ...rest } = requiredObject(job, prefix, ENQUEUE_FIELDS);
    const input = enqueueParams(rest, now, prefix);
    const { dependsOn, batchDependsOn } = batchDependsOnParam(_dependsOn, join(prefix, 'dependsOn'), i);
    return batchDependsOn.length === 0 ? { ...input, dependsOn } : { ...input, dependsOn, batchDependsOn };
  });
}

export interface UpdateInput {
  id: string;
  priority: number | null;
  delayMs: number | undefined;
  runAt: number | undefined;
  payload: string | null;
  maxAttempts: number | null;
  tags: string | null;
  weight: number | null;
  timeoutMs: number | null;
  /** Fields of a shell or HTTP payload, merged into the stored one by the engine (which knows the kind). */
  payloadEdits: PayloadEdits;
  /** A new group key; null: no group; undefined: leave it. */
  group?: string | null;
}

const PAYLOAD_EDIT_FIELDS = [...SHELL_EDIT_FIELDS, ...HTTP_EDIT_FIELDS];

/** `now` bounds runAt. */
export function updateParams(value: unknown, now: number): UpdateInput {
  const o = object(value, 'params', ['id', 'priority', 'runAt', 'delayMs', 'payload', 'maxAttempts', 'tags', 'weight', 'timeoutMs', 'group', ...PAYLOAD_EDIT_FIELDS]);
  const { delayMs, runAt } = runTime(o, '', now);
  const payloadEdits: PayloadEdits = {};
  for (const key of PAYLOAD_EDIT_FIELDS) {
    if (o[key] === undefined) continue;
    if (o['payload'] !== undefined) throw invalidParams(key, `Give either payload or ${key}, not both: ${key} changes one field of the payload`, 'payload, or its fields');
    payloadEdits[key] = o[key];
  }
  return {
    ...(o['group'] === undefined ? {} : { group: o['group'] === null ? null : groupKey(o['group'], 'group') }),
    timeoutMs: o['timeoutMs'] === undefined ? null : timeoutMs(o['timeoutMs'], 'timeoutMs'),
    payloadEdits,
    id: jobId(o['id']),
    priority: o['priority'] === undefined ? null : priority(o['priority'], 'priority'),
    delayMs,
    runAt,
    payload: o['payload'] === undefined ? null : jsonText(o['payload'], 'payload'),
    maxAttempts: o['maxAttempts'] === undefined ? null : maxAttempts(o['maxAttempts'], 'maxAttempts'),
    tags: o['tags'] === undefined ? null : JSON.stringify(tags(o['tags'], 'tags')),
    weight: o['weight'] === undefined ? null : weight(o['weight'], 'weight'),
  };
}

/** The filter fields of jobs.list and the bulk forms, validated. */
export type FilterInput = JobFilter;

const FILTER_FIELDS = ['queue', 'states', 'kind', 'tag', 'search', 'branch', 'idSuffix', 'delayed', 'olderThanMs', 'group'] as const;

/** The end of a job id as the views show it: lowercase hex digits and dashes, up to a whole id. */
const ID_SUFFIX = new RegExp(`^[0-9a-f-]{${LIMITS.minIdSuffixLength},36}$`);

function idSuffix(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !ID_SUFFIX.test(value)) {
    throw invalidParams(
      field,
      `${field} must be the end of a job id: ${LIMITS.minIdSuffixLength} to 36 characters of 0-9, a-f and "-" (got ${shown(value)})`,
      `${LIMITS.minIdSuffixLength} to 36 characters of [0-9a-f-]`,
    );
  }
  return value;
}

function filterFields(o: Fields, prefix: string): FilterInput {
  const f = (key: string): string => join(prefix, key);
  const filter: FilterInput = {};
  const queue = optionalName(o['queue'], f('queue'));
  if (queue !== undefined) filter.queue = queue;
  if (o['states'] !== undefined) {
    const states = array(o['states'], f('states'), JOB_STATES.length).map((s, i) => oneOf(s, `${f('states')}[${i}]`, JOB_STATES));
    if (states.length > 0) filter.states = [...new Set(states)];
  }
  const kind = optionalName(o['kind'], f('kind'));
  if (kind !== undefined) filter.kind = kind;
  const tag = optionalString(o['tag'], f('tag'), LIMITS.maxTagLength, 1);
  if (tag !== undefined) filter.tag = tag;
  const search = optionalString(o['search'], f('search'), LIMITS.maxSearchLength, 1);
  if (search !== undefined) filter.search = search;
  const branch = optionalString(o['branch'], f('branch'), MAX_CONTEXT_FIELD, 1);
  if (branch !== undefined) filter.branch = branch;
  const suffix = idSuffix(o['idSuffix'], f('idSuffix'));
  if (suffix !== undefined) filter.idSuffix = suffix;
  const delayed = optionalBoolean(o['delayed'], f('delayed'));
  if (delayed !== undefined) filter.delayed = delayed;
  const olderThanMs = optionalInteger(o['olderThanMs'], f('olderThanMs'), 0, LIMITS.maxDurationMs);
  if (olderThanMs !== undefined) filter.olderThanMs = olderThanMs;
  if (o['group'] !== undefined) filter.group = groupKey(o['group'], f('group'));
  return filter;
}

/** Where the previous page of a job listing ended: its last job's id and run time. */
export type ListCursor = { id: string; runAt: number };

export interface ListInput extends FilterInput {
  order: JobOrder;
  limit: number;
  after: ListCursor | undefined;
}

const ORDERS: readonly JobOrder[] = ['newest', 'oldest', 'runAt'];

/** Cursors are opaque to clients: base64url of "order:runAt:id". */
export function encodeCursor(order: JobOrder, cursor: ListCursor): string {
  return Buffer.from(`${order}:${cursor.runAt}:${cursor.id}`, 'utf8').toString('base64url');
}

function decodeCursor(value: unknown, order: JobOrder): ListCursor {
  if (typeof value !== 'string') throw invalidParams('cursor', mustBe('cursor', 'a string, the nextCursor of the previous page; leave it out for the first page', shown(value)));
  const raw = Buffer.from(value, 'base64url').toString('utf8');
  const match = /^(newest|oldest|runAt):(\d+):([0-9a-f-]{36})$/.exec(raw);
  if (!match) throw invalidParams('cursor', `cursor is not one this daemon issued (got ${shown(value)}); pass nextCursor from the previous page unchanged`);
  if (match[1] !== order) throw invalidParams('cursor', `cursor belongs to order "${match[1]}" but this request asks for "${order}"; keep the order while paging`);
  return { runAt: Number(match[2]), id: match[3] ?? '' };
}

export function listParams(value: unknown): ListInput {
  const o = object(value, 'params', [...FILTER_FIELDS, 'order', 'limit', 'cursor']);
  const order = o['order'] === undefined ? 'newest' : oneOf(o['order'], 'order', ORDERS);
  return {
    ...filterFields(o, ''),
    order,
    limit: o['limit'] === undefined ? 50 : integer(o['limit'], 'limit', 1, LIMITS.maxPageSize),
    after: o['cursor'] === undefined ? undefined : decodeCursor(o['cursor'], order),
  };
}

/** A page of output after a line, or the newest lines of a job. */
export type OutputInput = { id: string; after: number; limit: number } | { id: string; last: number };

export function outputParams(value: unknown): OutputInput {
  const o = object(value, 'params', ['id', 'after', 'limit', 'last']);
  const id = jobId(o['id']);
  if (o['last'] !== undefined) {
    const given = o['after'] !== undefined ? 'after' : o['limit'] !== undefined ? 'limit' : undefined;
    if (given) throw invalidParams(given, `Give either last (the newest lines) or ${given} (a page after a line), not both`, 'last, or after and limit');
    return { id, last: integer(o['last'], 'last', 1, LIMITS.maxPageSize) };
  }
  return {
    id,
    after: o['after'] === undefined ? 0 : integer(o['after'], 'after', 0, Number.MAX_SAFE_INTEGER),
    limit: o['limit'] === undefined ? 1000 : integer(o['limit'], 'limit', 1, LIMITS.maxPageSize),
  };
}

/** A bulk action's jobs: these ids, or every job matching a filter (in one queue, or across every queue). */
export type BulkInput = ({ ids: string[] } | { filter: FilterInput }) & { dryRun?: boolean };

/** `jobs.updateMany`: the jobs, and the priority each gets. */
export function bulkUpdateParams(value: unknown): { jobs: BulkInput; priority: number } {
  const { priority: given, ...rest } = object(value, 'params', ['ids', 'filter', 'dryRun', 'priority']);
  if (given === undefined) throw invalidParams('priority', 'priority is required: the priority every job named gets', `${LIMITS.minPriority}..${LIMITS.maxPriority}`);
  return { jobs: bulkParams(rest), priority: priority(given, 'priority') };
}

export function bulkParams(value: unknown): BulkInput {
  const o = object(value, 'params', ['ids', 'filter', 'dryRun']);
  const dryRun = optionalBoolean(o['dryRun'], 'dryRun') === true ? { dryRun: true } : {};
  if ((o['ids'] === undefined) === (o['filter'] === undefined)) {
    throw invalidParams('ids', 'Give either ids (a list of job ids) or filter (queue, states, kind, tag, search, branch, idSuffix, olderThanMs), not both and not neither', 'ids or filter');
  }
  if (o['ids'] !== undefined) {
    return { ids: [...new Set(array(o['ids'], 'ids', LIMITS.maxBatch, 1).map((id, i) => jobId(id, `ids[${i}]`)))], ...dryRun };
  }
  const f = requiredObject(o['filter'], 'filter', FILTER_FIELDS);
  const filter = filterFields(f, 'filter');
  // Without a queue the action spans every queue, which is what was asked for when states or
  // another field say which jobs; an empty filter would act on every job there is, which is
  // never what a caller meant (purge and queue delete exist for that).
  if (Object.keys(filter).length === 0) {
    throw invalidParams('filter', 'filter must say which jobs: give at least one of queue, states, kind, tag, search, branch, idSuffix, delayed or olderThanMs', FILTER_FIELDS.join(', '));
  }
  return { filter, ...dryRun };
}

export function idParam(value: unknown): string {
  return jobId(object(value, 'params', ['id'])['id']);
}
