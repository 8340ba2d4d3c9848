/**
 * Stats and upkeep, written once for every store: stats from the maintained counters, a batch of
 * retention, the pruning of old stat buckets, fire records, unique locks and empty group rows, the check of the counters, and
 * the next time anything becomes due (the daemon's wake-up timer).
 * Retention runs in batches, one transaction each (the engine's loop: Engine.cleanup), so that
 * no transaction holds the write lock (SQLite) or many row locks (PostgreSQL) for long.
 */
import type { QueueStats, Stats } from '../../../shared/protocol';
import { JOB_STATES } from '../../../shared/protocol/types';
import type { CounterMismatch } from '../api';
import { emptyCounts } from '../../storage/statements/queues';
import { sql, type Op } from '../../storage/statements';
import { allPaused } from './pauseAll';
import type { OpContext } from './context';
import { nextTokenAt, refill } from '../rateLimit';
import { listQueues } from './queues';

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** Stat buckets kept: stats look back an hour at most. */
const BUCKETS_KEPT_MS = 2 * HOUR;
/** Fire records older than this go: the swap on next_run_at has long moved past them. */
const FIRES_KEPT_MS = 24 * HOUR;
/**
 * Unique locks whose `until` passed this long ago go. An expired `unique` window or `throttle`
 * spacing holds nothing anyway; a `debounce` lock's `until` is its job's run time, and the job
 * may still wait past it in a busy queue, so locks are kept a day after it.
 */
const UNIQUE_LOCKS_KEPT_MS = 24 * HOUR;

/**
 * A group row with no waiting or running job for this long goes (found empty by one pass, still
 * empty an hour later): a group key seen once does not keep a row forever. A group that comes
 * back gets a new row, starting level with the groups waiting then and with a full token bucket.
 */
export const EMPTY_GROUPS_KEPT_MS = HOUR;

/** Counts per queue and state from the maintained counters (O(queues), never a scan of jobs), and the finished counts of the last minute and hour. */
export function* stats(c: OpContext): Op<Stats> {
  const now = c.now();
  const totals = emptyCounts();
  const queues: QueueStats[] = (yield* listQueues(c)).map((q) => {
    for (const state of JOB_STATES) totals[state] += q.counts[state];
    return { name: q.name, paused: q.paused, counts: q.counts, delayed: q.delayed };
  });
  const minute = yield* sql('statsFinishedSince', { now, windowMs: MINUTE });
  const hour = yield* sql('statsFinishedSince', { now, windowMs: HOUR });
  return {
    queues,
    totals,
    completedLastMinute: minute.completed,
    failedLastMinute: minute.failed,
    completedLastHour: hour.completed,
    failedLastHour: hour.failed,
    at: now,
    allPaused: yield* allPaused(),
  };
}

/** The queues that keep finished jobs for a limited time. */
export function* retainingQueues(): Op<{ name: string; retentionMs: number }[]> {
  const out: { name: string; retentionMs: number }[] = [];
  for (const q of yield* sql('queueList')) if (q.retentionMs !== null) out.push({ name: q.name, retentionMs: q.retentionMs });
  return out;
}

/** One batch of retention for one queue: up to `limit` finished jobs past the queue's retention; how many. */
export function* retentionBatch(c: OpContext, queue: string, retentionMs: number, limit: number): Op<number> {
  const cutoff = c.now() - retentionMs;
  // Ids are UUIDv7 of the creation time, and a job is created before it finishes.
  const deleted = yield* sql('jobDeleteExpired', { queue, cutoff, beforeId: c.policy.firstIdAt(cutoff), limit });
  if (deleted > 0) c.changes.queue(queue);
  return deleted;
}

/** Stat buckets older than two hours, (bounded) fire records and unique locks that ended a day ago, and group rows empty for an hour. */
export function* pruneHistory(c: OpContext): Op<void> {
  const now = c.now();
  yield* sql('statsPrune', now - BUCKETS_KEPT_MS);
  yield* sql('scheduleFiresPrune', { olderThan: now - FIRES_KEPT_MS, limit: c.policy.batchSize });
  yield* sql('uniqueLockDeleteExpired', { before: now - UNIQUE_LOCKS_KEPT_MS, limit: c.policy.batchSize });
  yield* sql('groupPruneEmpty', { now, before: now - EMPTY_GROUPS_KEPT_MS, limit: c.policy.batchSize });
}

/** Up to a batch of ended workflow runs whose jobs are all gone; how many. */
export function* pruneWorkflowRuns(c: OpContext): Op<number> {
  return yield* sql('workflowRunDeleteEmpty', c.policy.batchSize);
}

/** Recounts the jobs (one snapshot: the caller's read transaction) and compares with the maintained counters. */
export function* verifyCounters(): Op<{ ok: boolean; mismatches: CounterMismatch[] }> {
  const actual = new Map<string, number>();
  for (const row of yield* sql('counterRecount')) actual.set(`${row.queue}\u0000${row.state}`, row.count);
  const mismatches: CounterMismatch[] = [];
  const seen = new Set<string>();
  for (const [queue, counts] of yield* sql('counterAll')) {
    for (const state of JOB_STATES) {
      const key = `${queue}\u0000${state}`;
      seen.add(key);
      const a = actual.get(key) ?? 0;
      if (counts[state] !== a) mismatches.push({ queue, state, counted: counts[state], actual: a });
    }
  }
  for (const [key, count] of actual) {
    if (seen.has(key)) continue;
    const [queue = '', state = 'queued'] = key.split('\u0000');
    const known = JOB_STATES.find((s) => s === state);
    if (known) mismatches.push({ queue, state: known, counted: 0, actual: count });
  }
  return { ok: mismatches.length === 0, mismatches };
}

/**
 * The earliest future moment something becomes due: a delayed or retrying job of a queue that
 * is not paused, a lease expiry, a waiting job's expiry, a schedule, or a rate-limited queue's (or
 * group's) next token while it has jobs waiting for one. The token math is the engine's (../rateLimit.ts), so the store only
 * reports each limited queue's stored bucket.
 */
export function* nextWakeAt(c: OpContext): Op<number | null> {
  const now = c.now();
  let next = yield* sql('wakeDueAt', now);
  const expiry = yield* sql('jobNextExpiry', now);
  if (expiry !== null && (next === null || expiry < next)) next = expiry;
  for (const q of yield* sql('wakeRateLimited')) {
    const bucket = refill(q.rateLimit, q.bucket, now);
    if (bucket.tokens >= 1) continue;
    const at = nextTokenAt(q.rateLimit, bucket);
    if (next === null || at < next) next = at;
  }
  // The groups waiting for a token of their queue's rate per group, earliest refill first: the
  // first that has a token to come sets the wake-up (a few are read, not every group).
  for (const g of yield* sql('wakeGroupRateLimited', 16)) {
    const rate = (yield* sql('queueGet', g.queue))?.groupRate;
    if (!rate) continue;
    const bucket = refill(rate, g, now);
    if (bucket.tokens >= 1) continue;
    const at = nextTokenAt(rate, bucket);
    if (next === null || at < next) next = at;
  }
  return next;
}
