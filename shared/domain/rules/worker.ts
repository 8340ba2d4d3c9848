/**
 * Validation of the worker-side params: claim, heartbeat, progress, checkpoint, log, complete,
 * fail, and worker registration.
 */
import { invalidParams } from '../../protocol/errors';
import { CLAIMED_JOB_FIELDS, LIMITS, type ClaimedJobField } from '../../protocol';
import type { OutputStream } from '../../protocol/types';
import { array, boolean, integer, jobId, jsonText, name, nameList, object, oneOf, requiredObject, optionalInteger, optionalChoiceList, optionalName, optionalString, shown, string, type Fields } from '../validate';

export interface ClaimInput {
  workerId: string;
  queues: string[];
  kinds: string[];
  max: number;
  builtinKinds: string[] | undefined;
  /** The fields of each job the claimer reads; undefined for all of them. */
  fields: ClaimedJobField[] | undefined;
}

export function claimParams(value: unknown): ClaimInput {
  const o = object(value, 'params', ['workerId', 'queues', 'kinds', 'max', 'builtinKinds', 'fields']);
  return {
    workerId: name(o['workerId'], 'workerId'),
    queues: o['queues'] === undefined ? [] : [...new Set(nameList(o['queues'], 'queues', LIMITS.maxBatch))],
    kinds: o['kinds'] === undefined ? [] : [...new Set(nameList(o['kinds'], 'kinds', LIMITS.maxBatch))],
    max: o['max'] === undefined ? 1 : integer(o['max'], 'max', 1, LIMITS.maxBatch),
    builtinKinds: o['builtinKinds'] === undefined ? undefined : nameList(o['builtinKinds'], 'builtinKinds', 16),
    fields: optionalChoiceList(o['fields'], 'fields', CLAIMED_JOB_FIELDS),
  };
}

function workerJob(o: Fields): { id: string; workerId: string } {
  return { id: jobId(o['id']), workerId: name(o['workerId'], 'workerId') };
}

export function heartbeatParams(value: unknown): { id: string; workerId: string; extendMs: number | undefined } {
  const o = object(value, 'params', ['id', 'workerId', 'extendMs']);
  return { ...workerJob(o), extendMs: optionalInteger(o['extendMs'], 'extendMs', LIMITS.minTimeoutMs, LIMITS.maxTimeoutMs) };
}

/** A progress message is shown in a tree item's tooltip: a line, not a document. */
const MAX_PROGRESS_MESSAGE = 1024;

/** A percentage from 0 to 100; a fraction is rounded once it is known to be in range. */
function percentage(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
    throw invalidParams('percent', `percent must be a number from 0 to 100 (got ${shown(value)})`, '0..100');
  }
  return value;
}

export function progressParams(value: unknown): { id: string; workerId: string; percent: number; message: string | null } {
  const o = object(value, 'params', ['id', 'workerId', 'percent', 'message']);
  return {
    ...workerJob(o),
    percent: Math.round(percentage(o['percent'])),
    message: optionalString(o['message'], 'message', MAX_PROGRESS_MESSAGE) ?? null,
  };
}

/**
 * `checkpoint` is required: a missing field is far more likely a mistake (a worker passing
 * undefined, which JSON drops) than a wish to clear the saved checkpoint, so only an explicit
 * null clears it.
 */
export function checkpointParams(value: unknown): { id: string; workerId: string; checkpoint: string } {
  const o = object(value, 'params', ['id', 'workerId', 'checkpoint']);
  const job = workerJob(o);
  if (o['checkpoint'] === undefined) {
    throw invalidParams('checkpoint', 'checkpoint is required: the JSON a retry of this job resumes from, or null to clear the saved checkpoint', 'any JSON value, or null');
  }
  return { ...job, checkpoint: jsonText(o['checkpoint'], 'checkpoint') };
}

const LOG_STREAMS: readonly Exclude<OutputStream, 'marker'>[] = ['stdout', 'stderr', 'log'];

export function logStream(value: unknown, field: string): Exclude<OutputStream, 'marker'> {
  return oneOf(value, field, LOG_STREAMS);
}

/** Lines longer than the limit are truncated, not refused: losing a log line's tail beats losing the line. */
export function logLines(value: unknown, field: string): string[] {
  return array(value, field, LIMITS.maxBatch).map((line, i) => {
    if (typeof line !== 'string') return string(line, `${field}[${i}]`, 0);
    return line;
  });
}

export function logParams(value: unknown): { id: string; workerId: string; lines: string[]; stream: Exclude<OutputStream, 'marker'> } {
  const o = object(value, 'params', ['id', 'workerId', 'lines', 'stream']);
  return { ...workerJob(o), lines: logLines(o['lines'], 'lines'), stream: o['stream'] === undefined ? 'log' : logStream(o['stream'], 'stream') };
}

export function completeParams(value: unknown): { id: string; workerId: string; result: string | null } {
  const o = object(value, 'params', ['id', 'workerId', 'result']);
  return { ...workerJob(o), result: o['result'] === undefined ? null : jsonText(o['result'], 'result') };
}

/**
 * A jobs.completeMany: each job as completeParams would take it, its fields named by place
 * (`jobs[3].id`). A job named twice is refused: which of its results should win?
 */
export function completeManyParams(value: unknown): { id: string; workerId: string; result: string | null }[] {
  const o = object(value, 'params', ['workerId', 'jobs']);
  const workerId = name(o['workerId'], 'workerId');
  const seen = new Set<string>();
  return array(o['jobs'], 'jobs', LIMITS.maxBatch, 1).map((item, i) => {
    const prefix = `jobs[${i}]`;
    const job = requiredObject(item, prefix, ['id', 'result']);
    const id = jobId(job['id'], `${prefix}.id`);
    if (seen.has(id)) throw invalidParams(`${prefix}.id`, `${prefix}.id names job ${id} a second time; name each job once`);
    seen.add(id);
    return { id, workerId, result: job['result'] === undefined ? null : jsonText(job['result'], `${prefix}.result`) };
  });
}

/** An error message is for people; a stack can be long but not unbounded. */
const MAX_ERROR = 16 * 1024;
const MAX_STACK = 64 * 1024;

export interface FailInput {
  id: string;
  workerId: string;
  error: string;
  stack: string | null;
  exitCode: number | null;
  httpStatus: number | null;
  permanent: boolean;
  /** When the next attempt may start (epoch ms), instead of the backoff; null when not given. */
  retryAt: number | null;
}

export function failInput(value: unknown, now = Date.now()): FailInput {
  const o = object(value, 'params', ['id', 'workerId', 'error', 'stack', 'exitCode', 'httpStatus', 'permanent', 'retryAt']);
  const retryAt = o['retryAt'] === undefined ? null : integer(o['retryAt'], 'retryAt', 0, now + LIMITS.maxDurationMs);
  if (retryAt !== null && o['permanent'] === true) throw invalidParams('retryAt', 'retryAt and permanent cannot go together: a permanent failure is never retried', 'retryAt or permanent');
  return {
    ...workerJob(o),
    error: truncate(string(o['error'], 'error', Number.MAX_SAFE_INTEGER, 1), MAX_ERROR),
    stack: o['stack'] === undefined ? null : truncate(string(o['stack'], 'stack', Number.MAX_SAFE_INTEGER), MAX_STACK),
    exitCode: o['exitCode'] === undefined ? null : integer(o['exitCode'], 'exitCode', -2147483648, 2147483647),
    httpStatus: o['httpStatus'] === undefined ? null : integer(o['httpStatus'], 'httpStatus', 100, 999),
    permanent: o['permanent'] === undefined ? false : boolean(o['permanent'], 'permanent'),
    retryAt,
  };
}

export interface ReleaseInput {
  id: string;
  workerId: string;
  reason: string;
}

export function releaseParams(value: unknown): ReleaseInput {
  const o = object(value, 'params', ['id', 'workerId', 'reason']);
  const reason = o['reason'] === undefined ? 'released by its worker' : truncate(string(o['reason'], 'reason', Number.MAX_SAFE_INTEGER, 1), MAX_ERROR);
  return { ...workerJob(o), reason };
}

export interface SnoozeInput {
  id: string;
  workerId: string;
  /** When the job runs again (epoch ms). */
  runAt: number;
}

/**
 * `jobs.snooze`: `delayMs` from now or `runAt` (epoch ms), one of the two, at most
 * LIMITS.maxDurationMs ahead.
 */
export function snoozeParams(value: unknown, now: number): SnoozeInput {
  const o = object(value, 'params', ['id', 'workerId', 'delayMs', 'runAt']);
  const job = workerJob(o);
  const delayMs = optionalInteger(o['delayMs'], 'delayMs', 0, LIMITS.maxDurationMs);
  const runAt = optionalInteger(o['runAt'], 'runAt', 0, now + LIMITS.maxDurationMs);
  if ((delayMs === undefined) === (runAt === undefined)) {
    throw invalidParams('delayMs', 'Give either delayMs (how long from now) or runAt (epoch ms): when the job runs again', 'delayMs or runAt');
  }
  return { ...job, runAt: runAt ?? now + (delayMs ?? 0) };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

export interface RegisterInput {
  workerId: string | undefined;
  name: string | null;
  host: string | null;
  pid: number | null;
  queues: string[];
  kinds: string[];
  concurrency: number | null;
  /** The most weight of jobs the worker holds at once; null when it declared none. */
  capacity: number | null;
}

export function registerParams(value: unknown): RegisterInput {
  const o = object(value, 'params', ['workerId', 'name', 'host', 'pid', 'queues', 'kinds', 'concurrency', 'capacity']);
  return {
    workerId: optionalName(o['workerId'], 'workerId'),
    name: optionalString(o['name'], 'name', 256) ?? null,
    host: optionalString(o['host'], 'host', 256) ?? null,
    pid: optionalInteger(o['pid'], 'pid', 0, 2 ** 31 - 1) ?? null,
    queues: o['queues'] === undefined ? [] : nameList(o['queues'], 'queues', LIMITS.maxBatch),
    kinds: o['kinds'] === undefined ? [] : nameList(o['kinds'], 'kinds', LIMITS.maxBatch),
    concurrency: optionalInteger(o['concurrency'], 'concurrency', 1, 100_000) ?? null,
    capacity: optionalInteger(o['capacity'], 'capacity', 1, LIMITS.maxCapacity) ?? null,
  };
}
