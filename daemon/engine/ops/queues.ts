/**
 * Queues, written once for every store: created on first use with the defaults, listed and read
 * with their counts (from the maintained counters), configured, paused and resumed, purged and
 * deleted. Purging and deleting many jobs go in batches of `policy.batchSize`, one transaction
 * each (the engine's loop), so that a huge queue never holds the store's locks for long.
 */
import { setAgeing } from './ageing';
import { SpoolError } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';
import { JOB_STATES, type JobState, type Queue } from '../../../shared/protocol/types';
import { emptyCounts, type StoredQueue } from '../../storage/statements/queues';
import { changedLimits } from '../queueLimits';
import { sql, type Op } from '../../storage/statements';
import { queueNotFound } from '../errors';
import { mergedBackoff } from '../validate/jobs';
import type { ConfigureInput } from '../validate/queues';
import type { OpContext } from './context';
import { runJobsPurged } from './workflowRuns';

/** The queue's settings, creating it with the defaults if it does not exist. */
export function* ensureQueue(c: OpContext, name: string): Op<StoredQueue> {
  return (yield* sql('queueGet', name)) ?? (yield* createQueue(c, name));
}

/**
 * Creates the queue with the defaults after a read found none (the enqueue of one job reads
 * first itself: one generator less on the hottest path). Another daemon may create it between
 * the read and the insert: the insert then does nothing, and announcing the queue is that
 * daemon's.
 */
export function* createQueue(c: OpContext, name: string): Op<StoredQueue> {
  if (yield* sql('queueCreate', { name, defaults: c.policy.queueDefaults, now: c.now() })) c.changes.queue(name);
  const created = yield* sql('queueGet', name);
  if (!created) throw new Error(`Queue "${name}" was inserted but cannot be read back`);
  return created;
}

/** The states a forced delete removes: every one but running. */
export const WAITING_AND_FINISHED: readonly JobState[] = JOB_STATES.filter((s) => s !== 'running');

/** Every queue with its counts. */
export function* listQueues(c: OpContext): Op<Queue[]> {
  const settings = yield* sql('queueList');
  const counts = yield* sql('queueCountsAll');
  const delayed = yield* sql('queueDelayedAll', c.now());
  return settings.map((s) => ({ ...s, counts: counts.get(s.name) ?? emptyCounts(), delayed: delayed.get(s.name) ?? 0 }));
}

/** One queue with its counts; rejects with QueueNotFound. */
export function* getQueue(c: OpContext, name: string): Op<Queue> {
  const settings = yield* sql('queueGet', name);
  if (!settings) throw queueNotFound(name);
  return { ...settings, counts: yield* sql('queueCounts', name), delayed: yield* sql('queueDelayed', { name, now: c.now() }) };
}

/** Changes a queue's settings, creating it with the defaults first if it is new. */
export function* configureQueue(c: OpContext, input: ConfigureInput): Op<Queue> {
  yield* ensureQueue(c, input.name);
  // Read again with its lock: what is merged below is what the write replaces.
  const current = yield* sql('queueGetForConfigure', input.name);
  if (!current) throw queueNotFound(input.name);
  if (input.concurrency != null && (current.concurrency === null || input.concurrency < current.concurrency)) {
    yield* checkNoneTooHeavy(input.name, input.concurrency);
  }
  const backoff = mergedBackoff(current.defaultBackoff, input.defaultBackoff ?? {}, 'defaultBackoff');
  const rate = input.rateLimit === undefined ? current.rateLimit : input.rateLimit;
  const limits = changedLimits(current.limits, input.limits);
  const groupConcurrency = input.groupConcurrency === undefined ? current.groupConcurrency : input.groupConcurrency;
  const groupRate = input.groupRate === undefined ? current.groupRate : input.groupRate;
  const groupWeights = input.groupWeights === undefined ? current.groupWeights : input.groupWeights;
  yield* sql('queueUpdate', {
    name: input.name,
    concurrency: input.concurrency === undefined ? current.concurrency : input.concurrency,
    ratePerSecond: rate?.perSecond ?? null,
    rateBurst: rate?.burst ?? null,
    defaultMaxAttempts: input.defaultMaxAttempts ?? current.defaultMaxAttempts,
    backoffStrategy: backoff.strategy,
    backoffBaseMs: backoff.baseMs,
    backoffCapMs: backoff.capMs,
    backoffJitter: backoff.jitter,
    defaultTimeoutMs: input.defaultTimeoutMs ?? current.defaultTimeoutMs,
    retentionMs: input.retentionMs === undefined ? current.retentionMs : input.retentionMs,
    limitMemoryBytes: limits.memoryBytes ?? null,
    limitCpuSeconds: limits.cpuSeconds ?? null,
    limitOpenFiles: limits.openFiles ?? null,
    limitProcesses: limits.processes ?? null,
    groupConcurrency,
    groupRatePerSecond: groupRate?.perSecond ?? null,
    groupRateBurst: groupRate?.burst ?? null,
    groupWeights: groupWeights === null ? null : JSON.stringify(groupWeights),
    now: c.now(),
  });
  // A group setting makes the queue grouped: its claims take its groups in turn from now on.
  if (groupConcurrency !== null || groupRate !== null || groupWeights !== null) yield* sql('queueMarkGrouped', { name: input.name, now: c.now() });
  if (input.retry !== undefined || input.defaultExpireAfterMs !== undefined) {
    const retry = input.retry === undefined ? (current.retry ?? null) : input.retry;
    yield* sql('queueSetRetryPolicy', {
      name: input.name,
      retryRule: retry === null ? null : JSON.stringify(retry),
      defaultExpireAfterMs: input.defaultExpireAfterMs === undefined ? (current.defaultExpireAfterMs ?? null) : input.defaultExpireAfterMs,
      now: c.now(),
    });
  }
  if (input.ageing !== undefined) yield* setAgeing(c, input.name, input.ageing);
  c.changes.queue(input.name);
  return yield* getQueue(c, input.name);
}

/**
 * Refuses a concurrency lower than a waiting job's weight: that job could never start, and would
 * hold back every job behind it.
 */
function* checkNoneTooHeavy(name: string, concurrency: number): Op<void> {
  const heavier = yield* sql('queueHeavierWaiting', { name, weight: concurrency });
  if (heavier.count === 0) return;
  const jobs = heavier.count === 1 ? `1 waiting job that weighs ${heavier.heaviest}` : `${heavier.count} waiting jobs that weigh more (up to ${heavier.heaviest})`;
  throw new SpoolError(
    ErrorCode.InvalidState,
    `concurrency ${concurrency} for queue "${name}" would leave ${jobs} unable ever to start. Cancel them or lower their weight first (spool jobs --queue ${name} --state queued,retrying lists them), or keep a concurrency of at least ${heavier.heaviest}.`,
    { queue: name, field: 'concurrency', allowed: `${heavier.heaviest}.. or none` },
  );
}

/**
 * Pauses or resumes a queue. A pause creates the queue with the defaults if it does not exist
 * yet, as configuring it does: a queue paused before its first job is enqueued must hold that
 * job. A resume of an unknown queue is refused instead: it would create a queue to change nothing.
 */
export function* setPaused(c: OpContext, name: string, paused: boolean): Op<Queue> {
  if (paused) yield* ensureQueue(c, name);
  if (!(yield* sql('queueSetPaused', { name, paused, now: c.now() }))) throw queueNotFound(name);
  c.changes.queue(name);
  return yield* getQueue(c, name);
}

/** One batch of a purge: up to batchSize of the queue's jobs in these states (never running ones). */
export function* purgeBatch(c: OpContext, name: string, states: readonly JobState[]): Op<number> {
  const { deleted, unfinishedByRun } = yield* sql('queuePurge', { name, states: [...states], limit: c.policy.batchSize });
  if (deleted > 0) c.changes.queue(name);
  yield* runJobsPurged(c, unfinishedByRun);
  return deleted;
}

/** Refuses while jobs run, and without `force` while any job is left. */
function jobsLeft(name: string, running: number, total: number, force: boolean): void {
  if (running > 0) {
    throw new SpoolError(ErrorCode.InvalidState, `Cannot delete queue "${name}": ${running} job(s) are running. Pause it, wait for them or cancel them, then delete.`, { queue: name });
  }
  if (total > 0 && !force) {
    throw new SpoolError(ErrorCode.InvalidState, `Queue "${name}" still has ${total} job(s). Purge it first, or delete it with force (spool queue ${name} delete --force; queues.delete with force: true) to remove them too.`, { queue: name });
  }
}

/**
 * Whether the queue may be deleted, from its counters (the check before a forced delete's
 * batches); `lock` locks the queue's row for the rest of the transaction.
 */
export function* checkQueueDeletable(name: string, force: boolean, lock = false): Op<void> {
  const settings = lock ? yield* sql('queueGetForUpdate', name) : yield* sql('queueGet', name);
  if (!settings) throw queueNotFound(name);
  const counts = yield* sql('queueCounts', name);
  jobsLeft(name, counts.running, Object.values(counts).reduce((a, b) => a + b, 0), force);
}

/**
 * Deletes a queue, and with `force` the waiting and finished jobs it still has, all in this
 * transaction; how many jobs went. The queue row is locked first, so no job can be added to it
 * meanwhile; the jobs left are counted again after the purge, so a job another daemon claimed
 * between the check and the delete refuses the delete as a running job would.
 */
export function* deleteQueueNow(c: OpContext, name: string, force: boolean): Op<number> {
  yield* checkQueueDeletable(name, force, true);
  let deleted = 0;
  if (force) {
    let n: number;
    do {
      const purged = yield* sql('queuePurge', { name, states: [...WAITING_AND_FINISHED], limit: c.policy.batchSize });
      yield* runJobsPurged(c, purged.unfinishedByRun);
      n = purged.deleted;
      deleted += n;
    } while (n === c.policy.batchSize);
  }
  const left = yield* sql('queueJobsLeft', name);
  jobsLeft(name, left.running, left.total, false);
  yield* sql('queueDelete', name);
  c.changes.queue(name, true);
  return deleted;
}
