/**
 * Enqueueing, written once for every store: the job's stored form computed from its queue's
 * defaults, idempotency keys, the jobs it depends on (./dependencies.ts), and the insert.
 *
 * Same key, same job: the first one wins and is returned as it is now (`created: false`), never
 * overwritten. A key repeated within one batch gets the job its first use created, as it would
 * one call at a time. A key another transaction inserted between the read and the insert (only
 * PostgreSQL can see that: SQLite's write lock excludes it) gets that transaction's job.
 *
 * A job with `unique`, `debounce` or `throttle` goes through ./unique.ts before its insert: an
 * equal job may be returned instead (`reason` says why), or its run time moved. Equal jobs within
 * one batch are matched to each other as they would be one call at a time.
 */
import type { EnqueueReason, EnqueueResult } from '../../../shared/protocol';
import type { Job } from '../../../shared/protocol/types';
import type { StoredQueue } from '../../storage/statements/queues';
import { sql, type Op } from '../../storage/statements';
import { PLAIN_JOB_INSERT, type JobInsert } from '../../storage/statements/jobs';
import { mergedBackoff, type DependencyInput, type EnqueueInput } from '../validate/jobs';
import type { OpContext } from './context';
import { createQueue, ensureQueue } from './queues';
import { batchDependentCounts, planDependencies, type PlannedJob } from './dependencies';
import { tooHeavy } from '../errors';
import { groupedFor } from './groups';
import { invalidParams, SpoolError } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';
import type { DependencyEdge } from '../../storage/statements/dependencies';
import { jobUniqueness } from '../../../shared/domain/rules/unique';
import { applyUnique, uniqueHash } from './unique';
import * as history from './historySteps';

/**
 * Refuses a job that weighs more than its queue's concurrency: it could never start. A
 * schedule's tick is not refused (`refuse` false): the refusal would come back at every wake-up,
 * with nobody there to read it.
 */
export function checkWeight(input: EnqueueInput, queue: StoredQueue, refuse: boolean): void {
  if (refuse && queue.concurrency !== null && input.weight > queue.concurrency) throw tooHeavy(input.queue, input.weight, queue.concurrency);
}

/** The stored form of a new job: the queue's defaults filled in, the backoff checked against them. */
export function jobRow(c: OpContext, input: EnqueueInput, queue: StoredQueue, now: number): JobInsert {
  const backoff = input.backoffField === null ? { ...queue.defaultBackoff, ...input.backoff } : mergedBackoff(queue.defaultBackoff, input.backoff, input.backoffField);
  return {
    id: c.policy.newId(),
    queue: input.queue,
    kind: input.kind,
    payload: input.payload,
    priority: input.priority,
    weight: input.weight,
    runAt: input.runAt ?? now + (input.delayMs ?? 0),
    maxAttempts: input.maxAttempts ?? queue.defaultMaxAttempts,
    backoffStrategy: backoff.strategy,
    backoffBaseMs: backoff.baseMs,
    backoffCapMs: backoff.capMs,
    backoffJitter: backoff.jitter,
    timeoutMs: input.timeoutMs ?? queue.defaultTimeoutMs,
    idempotencyKey: input.idempotencyKey,
    tags: input.tags,
    context: input.context,
    ...PLAIN_JOB_INSERT,
    // In a grouped queue a job without a group is in the group '' (of the jobs without one).
    groupKey: input.group ?? (queue.grouped ? '' : null),
    ...(input.unique === undefined ? {} : { uniqueness: JSON.stringify(jobUniqueness(input.unique)) }),
    ...expiryOf(input, queue, now),
    now,
  };
}

/**
 * The retry rule, expiry and deadline a new job is stored with. The job's own rule replaces its
 * queue's (a template's rule reaches here as the job's own); null given by the job clears it.
 */
function expiryOf(input: EnqueueInput, queue: StoredQueue, now: number): Pick<JobInsert, 'retryRule' | 'expireAt' | 'deadlineAt'> {
  const rule = input.retry === undefined ? (queue.retry ?? null) : input.retry;
  const expireAfterMs = input.expireAfterMs ?? queue.defaultExpireAfterMs ?? null;
  return {
    retryRule: rule === null ? null : JSON.stringify(rule),
    expireAt: expireAfterMs === null ? null : now + expireAfterMs,
    deadlineAt: input.deadlineAt ?? (input.deadlineMs === undefined ? null : now + input.deadlineMs),
  };
}

/** The job another transaction inserted with `key` while this one ran. */
function* keyWinner(key: string | null): Op<Job> {
  const winner = key === null ? undefined : yield* sql('jobGetByIdempotencyKey', key);
  if (!winner) throw new Error('An enqueue lost its idempotency key to another transaction whose job cannot be read');
  return winner;
}

/** One job (its own statement: a one-row insert costs less than a batch of one). */
export function* enqueue(c: OpContext, input: EnqueueInput, refuseTooHeavy = true): Op<EnqueueResult> {
  const key = input.idempotencyKey;
  if (key !== null) {
    const existing = yield* sql('jobGetByIdempotencyKey', key);
    if (existing) return { job: existing, created: false, reason: 'key', existingState: existing.state };
  }
  const queue = yield* groupedFor(c, input, (yield* sql('queueGet', input.queue)) ?? (yield* createQueue(c, input.queue)));
  checkWeight(input, queue, refuseTooHeavy);
  const row = jobRow(c, input, queue, c.now());
  let throttled = false;
  if (input.unique !== undefined) {
    const outcome = yield* applyUnique(c, input.unique, uniqueHash(input.unique, input), row);
    if ('existing' in outcome) return { job: outcome.existing, created: false, reason: outcome.reason, existingState: outcome.existingState };
    throttled = outcome.throttled;
  }
  const edges = input.dependsOn.length === 0 ? [] : yield* planDependencies(c, [{ row, dependsOn: input.dependsOn }]);
  const job = yield* sql('jobInsert', row);
  if (!job) return keyResult(yield* keyWinner(key));
  if (edges.length > 0) yield* sql('dependencyInsertMany', edges);
  c.changes.job(job);
  history.enqueued(c, [job], job.createdAt);
  return throttled ? { job, created: true, reason: 'throttled' } : { job, created: true };
}

/** The answer for a job that already held the idempotency key. */
function keyResult(job: Job): EnqueueResult {
  return { job, created: false, reason: 'key', existingState: job.state };
}

/** The batch's own jobs with a `unique` or `debounce` rule, by hash: their slot in the inserts. */
type BatchPlaces = Map<string, number>;

/**
 * What became of one input of a batch: the job that already had its key (or an equal job), or
 * its row in the insert; `reason` as in EnqueueResult.
 */
type Slot = { existing: Job; reason: EnqueueReason; existingState: Job['state'] } | { insert: number; created: boolean; reason?: EnqueueReason };

/**
 * Many jobs, inserted together. The keys are read in one statement and each queue's settings
 * once.
 */
export function* enqueueMany(c: OpContext, inputs: readonly EnqueueInput[]): Op<EnqueueResult[]> {
  const now = c.now();
  const known = yield* knownKeys(inputs);
  const queues = new Map<string, StoredQueue>();
  /** Per input: the job that already had its key, or the index of its row in `inserts`. */
  const slots: Slot[] = [];
  const inserts: JobInsert[] = [];
  const planned: PlannedJob[] = [];
  const insertedKeys = new Map<string, number>();
  const places: BatchPlaces = new Map();
  /** Rows that later jobs of the batch depend on by index, by id. */
  let batch: Map<string, JobInsert> | undefined;
  for (const input of inputs) {
    const key = input.idempotencyKey;
    if (key !== null) {
      const inBatch = insertedKeys.get(key);
      if (inBatch !== undefined) {
        slots.push({ insert: inBatch, created: false, reason: 'key' });
        continue;
      }
      const existing = known?.get(key);
      if (existing) {
        slots.push({ existing, reason: 'key', existingState: existing.state });
        continue;
      }
    }
    const dependsOn = input.batchDependsOn === undefined ? input.dependsOn : [...input.dependsOn, ...batchDependencies(input, slots, inserts, (batch ??= new Map()))];
    let queue = queues.get(input.queue);
    if (queue === undefined) {
      queue = yield* ensureQueue(c, input.queue);
      queues.set(input.queue, queue);
    }
    if (input.group !== null && !queue.grouped) {
      queue = yield* groupedFor(c, input, queue);
      queues.set(input.queue, queue);
      // Jobs of this batch already planned without a group join the group of the jobs without one.
      for (const row of inserts) if (row.queue === input.queue && row.groupKey === null) row.groupKey = '';
    }
    checkWeight(input, queue, true);
    const row = jobRow(c, input, queue, now);
    let reason: EnqueueReason | undefined;
    if (input.unique !== undefined) {
      const slot = yield* uniqueSlot(c, input, row, inserts, places);
      if (slot !== undefined && !('throttled' in slot)) {
        slots.push(slot);
        continue;
      }
      if (slot?.throttled) reason = 'throttled';
    }
    if (key !== null) insertedKeys.set(key, inserts.length);
    slots.push(reason === undefined ? { insert: inserts.length, created: true } : { insert: inserts.length, created: true, reason });
    inserts.push(row);
    if (dependsOn.length > 0) planned.push({ row, dependsOn });
  }
  const edges = planned.length === 0 ? [] : yield* planDependencies(c, planned, batch);
  const jobs = inserts.length === 0 ? [] : yield* sql('jobInsertMany', inserts);
  if (edges.length > 0) {
    // A job whose key another transaction took was not inserted: its edges go with it.
    const inserted = new Set<string>();
    for (const job of jobs) if (job) inserted.add(job.id);
    if (batch !== undefined) yield* countBatchDependents(c, jobs, edges, batch, inserted);
    yield* sql('dependencyInsertMany', edges.filter((edge) => inserted.has(edge.jobId)));
  }
  for (const job of jobs) if (job) c.changes.job(job);
  history.enqueued(c, jobs.filter((job) => job !== undefined), c.now());
  const results: EnqueueResult[] = [];
  for (const slot of slots) {
    if ('existing' in slot) {
      results.push({ job: slot.existing, created: false, reason: slot.reason, existingState: slot.existingState });
      continue;
    }
    const job = jobs[slot.insert];
    // Undefined: the key was lost to another transaction's commit, and its job is the winner's.
    if (!job) results.push(keyResult(yield* keyWinner(inserts[slot.insert]?.idempotencyKey ?? null)));
    else if (slot.reason === undefined) results.push({ job, created: slot.created });
    else if (slot.created) results.push({ job, created: true, reason: slot.reason });
    else results.push({ job, created: false, reason: slot.reason, existingState: job.state });
  }
  return results;
}

/**
 * The rule of a batch's input: an equal job earlier in the batch takes its place (`unique`), or
 * gets its payload and run time (`debounce`); else ./unique.ts decides against the store. The
 * slot of a job that is not inserted, `{ throttled }` for one that is, undefined for one as asked.
 */
function* uniqueSlot(c: OpContext, input: EnqueueInput, row: JobInsert, inserts: JobInsert[], places: BatchPlaces): Op<Slot | { throttled: true } | undefined> {
  const rule = input.unique;
  if (rule === undefined) return undefined;
  const hash = uniqueHash(rule, input);
  const earlier = rule.rule === 'throttle' ? undefined : places.get(hash);
  const earlierRow = earlier === undefined ? undefined : inserts[earlier];
  if (earlier !== undefined && earlierRow !== undefined) {
    if (rule.rule === 'unique') return { insert: earlier, created: false, reason: 'unique' };
    earlierRow.payload = row.payload;
    earlierRow.runAt = Math.max(row.runAt, row.now + rule.forMs);
    yield* sql('uniqueLockReplace', { hash, jobId: earlierRow.id, until: earlierRow.runAt, previousJobId: earlierRow.id });
    return { insert: earlier, created: false, reason: 'debounced' };
  }
  const outcome = yield* applyUnique(c, rule, hash, row);
  if ('existing' in outcome) return { existing: outcome.existing, reason: outcome.reason, existingState: outcome.existingState };
  if (rule.rule !== 'throttle') places.set(hash, inserts.length);
  return outcome.throttled ? { throttled: true } : undefined;
}

/**
 * The dependencies of `input` on earlier jobs of its batch, as ids: a job inserted by this batch
 * (its row is added to `batch`, so that its dependents are planned from its planned state), or
 * the existing job an earlier job's idempotency key matched. Refused when that names a job the
 * input also names by id.
 */
function batchDependencies(input: EnqueueInput, slots: readonly Slot[], inserts: readonly JobInsert[], batch: Map<string, JobInsert>): DependencyInput[] {
  const named = new Set(input.dependsOn.map((d) => d.id));
  return (input.batchDependsOn ?? []).map((d) => {
    const slot = slots[d.index];
    if (slot === undefined) throw new Error(`${d.field} names job ${d.index} of the batch, which validation let through without a slot`);
    let id: string;
    if ('existing' in slot) id = slot.existing.id;
    else {
      const row = inserts[slot.insert];
      if (row === undefined) throw new Error(`${d.field} names a row the batch does not hold`);
      batch.set(row.id, row);
      id = row.id;
    }
    if (named.has(id)) throw invalidParams(d.field, `${d.field} names job ${id} (job ${d.index} of the batch) again: name each job once`, 'each job once');
    named.add(id);
    return { id, on: d.on, field: d.field };
  });
}

/**
 * The inserted rows of the batch gain their dependents from within the batch (their rows were
 * inserted with none). A row that lost its idempotency key to another transaction (PostgreSQL
 * only) was not inserted, and the jobs that depend on it cannot be settled: the batch is refused,
 * and sent again finds that key's job.
 */
function* countBatchDependents(c: OpContext, jobs: readonly (Job | undefined)[], edges: readonly DependencyEdge[], batch: ReadonlyMap<string, JobInsert>, inserted: ReadonlySet<string>): Op<void> {
  const counts = batchDependentCounts(edges, batch);
  const lost = counts.find(({ id }) => !inserted.has(id));
  if (lost !== undefined) {
    throw new SpoolError(
      ErrorCode.InvalidState,
      `Job ${lost.id} of the batch lost its idempotency key to another enqueue that committed meanwhile, and later jobs of the batch depend on it. Nothing was enqueued; send the batch again.`,
      { id: lost.id },
    );
  }
  if (counts.length === 0) return;
  const updated = new Map<string, Job>();
  for (const job of jobs) if (job && batch.has(job.id)) updated.set(job.id, job);
  yield* sql('jobAddDependents', { counts, now: c.now() });
  for (const { id, n } of counts) {
    const job = updated.get(id);
    if (job) job.dependents += n;
  }
}

/** The jobs already holding the batch's keys, by key; undefined when no input has a key. */
function* knownKeys(inputs: readonly EnqueueInput[]): Op<Map<string, Job> | undefined> {
  let keys: Set<string> | undefined;
  for (const input of inputs) if (input.idempotencyKey !== null) (keys ??= new Set()).add(input.idempotencyKey);
  if (keys === undefined) return undefined;
  const known = new Map<string, Job>();
  for (const job of yield* sql('jobGetByIdempotencyKeys', [...keys])) if (job.idempotencyKey !== null) known.set(job.idempotencyKey, job);
  return known;
}
