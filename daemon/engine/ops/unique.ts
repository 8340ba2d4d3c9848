/**
 * Unique jobs, debounce and throttle, written once for every store: what an enqueue with one of
 * the three rules does before its job is inserted.
 *
 * Two jobs are "such jobs" when they are equal by the rule's `by` (queue, kind, payload, group,
 * a value inside the payload): their hash, of the rule's name and those parts in canonical JSON,
 * keys one lock row (daemon/storage/statements/unique.ts) that names the job holding the place.
 * The store only inserts a missing lock or swaps its holder for another; whether a holder still
 * holds (its window, its state) is decided here. On PostgreSQL the insert and the swap are
 * ordered by the lock row, so of two daemons enqueueing the same unique job at once one inserts
 * its job and the other returns it.
 *
 * - `unique`: the holder holds for `for` after it was enqueued, while it is as `while` says
 *   (`waiting`: blocked or queued; `active`: not ended; `any`: whatever it became). The equal
 *   job is not inserted; the holder is returned.
 * - `debounce`: the holder holds while it is queued: its payload is replaced and its start moved
 *   to now + debounce. Otherwise the new job is inserted to start at now + debounce, and holds.
 * - `throttle`: every job is inserted, to start no earlier than the previous one's start +
 *   throttle (the lock's `until`): at most one starts per throttle, as their run times go.
 */
import { createHash } from 'node:crypto';
import type { EnqueueReason } from '../../../shared/protocol';
import type { Job, JobState, UniqueKeyPart } from '../../../shared/protocol/types';
import { canonicalJson } from '../../../shared/jobsfile/plan';
import { isRecord } from '../../../shared/domain/records';
import type { UniqueRule } from '../../../shared/domain/rules/unique';
import { sql, type Op } from '../../storage/statements';
import type { JobInsert } from '../../storage/statements/jobs';
import type { EnqueueInput } from '../validate/jobs';
import type { OpContext } from './context';

/** What became of a job with a rule: an equal job took its place, or it is inserted (maybe later than asked). */
export type UniqueOutcome = { existing: Job; reason: Extract<EnqueueReason, 'unique' | 'debounced'>; existingState: JobState } | { insert: true; throttled: boolean };

/**
 * How many times an enqueue tries again after losing the lock to another transaction between
 * its read and its write. Each loss is another enqueue's win, so the tries end; the bound only
 * turns a store that never answers the same way twice into an error.
 */
const MAX_TRIES = 100;

/** The states in which a `unique` holder holds, by `while`. */
const HOLDING: Readonly<Record<UniqueRule['while'], readonly JobState[] | 'all'>> = {
  // A held job has not started: it holds its place until it is released and ends.
  waiting: ['blocked', 'queued', 'held'],
  active: ['blocked', 'queued', 'held', 'running', 'retrying'],
  any: 'all',
};

/** The hash of the rule's name and the parts of the job its `by` names. */
export function uniqueHash(rule: UniqueRule, input: Pick<EnqueueInput, 'queue' | 'kind' | 'payload' | 'group'>): string {
  const needsPayload = rule.by.some((part) => part === 'payload' || part.startsWith('payload.'));
  const payload: unknown = needsPayload ? JSON.parse(input.payload) : null;
  const parts = rule.by.map((part) => [part, partValue(part, input, payload)]);
  return createHash('sha256').update(canonicalJson([rule.rule, parts])).digest('hex');
}

function partValue(part: UniqueKeyPart, input: Pick<EnqueueInput, 'queue' | 'kind' | 'group'>, payload: unknown): unknown {
  if (part === 'queue') return input.queue;
  if (part === 'kind') return input.kind;
  if (part === 'group') return input.group ?? null;
  if (part === 'payload') return payload;
  // payload.<path>: object keys, and positions in arrays; a value that is not there is null.
  let value = payload;
  for (const key of part.split('.').slice(1)) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
    else if (isRecord(value) && Object.hasOwn(value, key)) value = value[key];
    else return null;
  }
  return value === undefined ? null : value;
}

/**
 * Applies `rule` to the job about to be inserted as `row` (whose run time a debounce or a
 * throttle moves). `hash` is uniqueHash of the rule and the job.
 */
export function* applyUnique(c: OpContext, rule: UniqueRule, hash: string, row: JobInsert): Op<UniqueOutcome> {
  const now = row.now;
  if (rule.rule === 'throttle') return yield* throttle(rule, hash, row);
  if (rule.rule === 'debounce') row.runAt = Math.max(row.runAt, now + rule.forMs);
  const until = rule.rule === 'unique' ? now + rule.forMs : row.runAt;
  for (let i = 0; i < MAX_TRIES; i++) {
    if (yield* sql('uniqueLockInsert', { hash, jobId: row.id, until })) return { insert: true, throttled: false };
    const lock = yield* sql('uniqueLockGet', hash);
    // Deleted since the insert found it: insert again.
    if (lock === undefined) continue;
    const holder = yield* sql('jobGet', lock.jobId);
    if (holder !== undefined) {
      if (rule.rule === 'unique' && lock.until > now && holds(rule.while, holder.state)) return { existing: holder, reason: 'unique', existingState: holder.state };
      if (rule.rule === 'debounce' && holder.state === 'queued') {
        const updated = yield* sql('jobUpdate', { id: holder.id, priority: null, runAt: row.runAt, payload: row.payload, maxAttempts: null, tags: null, weight: null, timeoutMs: null, now });
        // Undefined: claimed since it was read (PostgreSQL); the new job takes the place.
        if (updated !== undefined) {
          c.changes.job(updated);
          yield* sql('uniqueLockReplace', { hash, jobId: holder.id, until: row.runAt, previousJobId: holder.id });
          return { existing: updated, reason: 'debounced', existingState: holder.state };
        }
      }
    }
    if (yield* sql('uniqueLockReplace', { hash, jobId: row.id, until, previousJobId: lock.jobId })) return { insert: true, throttled: false };
  }
  throw new Error(`An enqueue lost the unique lock ${hash} to other transactions ${MAX_TRIES} times in a row`);
}

function holds(when: UniqueRule['while'], state: JobState): boolean {
  const states = HOLDING[when];
  return states === 'all' || states.includes(state);
}

/** Moves the row's run time to the lock's next start when that is later, and the lock past it. */
function* throttle(rule: UniqueRule, hash: string, row: JobInsert): Op<UniqueOutcome> {
  const asked = row.runAt;
  for (let i = 0; i < MAX_TRIES; i++) {
    const lock = yield* sql('uniqueLockGet', hash);
    if (lock === undefined) {
      if (yield* sql('uniqueLockInsert', { hash, jobId: row.id, until: asked + rule.forMs })) return { insert: true, throttled: false };
      continue;
    }
    const runAt = Math.max(asked, lock.until);
    if (yield* sql('uniqueLockReplace', { hash, jobId: row.id, until: runAt + rule.forMs, previousJobId: lock.jobId })) {
      row.runAt = runAt;
      return { insert: true, throttled: runAt > asked };
    }
  }
  throw new Error(`An enqueue lost the throttle lock ${hash} to other transactions ${MAX_TRIES} times in a row`);
}
