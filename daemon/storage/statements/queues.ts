/**
 * Statements over queues and their counters (see ./index.ts for the protocol). SQLite keeps the
 * counters itself (its job statements report every move, written at commit) and PostgreSQL by
 * triggers: either way `queueCounts` answers with what the open transaction has done so far. A
 * rate-limited queue's token bucket is kept in its row (queueSetRateState).
 */
import { TERMINAL_STATES, type Backoff, type JobCounts, type JobState, type Queue } from '../../../shared/protocol/types';

/** A queue's settings as a store holds them, with its owning project (its counts are added by the caller). */
export type StoredQueue = Omit<Queue, 'counts' | 'delayed'>;

/** Counts of no jobs: the start of every sum of a queue's counters, in the stores and the engine alike. */
export function emptyCounts(): JobCounts {
  return { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 };
}

/** The settings a queue gets when its first job (or a pause) creates it. */
export type QueueDefaults = {
  concurrency: number | null;
  maxAttempts: number;
  backoff: Backoff;
  timeoutMs: number;
  retentionMs: number | null;
};

/** Every setting a configure writes (the queue's pause and rate bucket are not among them). */
export type QueueUpdate = {
  name: string;
  concurrency: number | null;
  ratePerSecond: number | null;
  rateBurst: number | null;
  defaultMaxAttempts: number;
  backoffStrategy: string;
  backoffBaseMs: number;
  backoffCapMs: number;
  backoffJitter: number;
  defaultTimeoutMs: number;
  retentionMs: number | null;
  limitMemoryBytes: number | null;
  limitCpuSeconds: number | null;
  limitOpenFiles: number | null;
  limitProcesses: number | null;
  groupConcurrency: number | null;
  groupRatePerSecond: number | null;
  groupRateBurst: number | null;
  /** JSON text of the fairness weights, or null. */
  groupWeights: string | null;
  now: number;
};

/** A rate limit's token bucket as the queue row keeps it: tokens null means a full bucket. */
export type QueueRateState = {
  tokens: number | null;
  refilledAt: number | null;
};

/** What one batch of a purge deleted. */
export interface PurgedJobs {
  deleted: number;
  /** Workflow run id → how many of its jobs that had not ended were deleted; runs that lost none are absent. */
  unfinishedByRun: Map<string, number>;
}

/** Adds a deleted job to `byRun` when it belongs to a run and had not ended. */
export function countUnfinishedOfRun(byRun: Map<string, number>, state: JobState, runId: string | null): void {
  if (runId === null || TERMINAL_STATES.includes(state)) return;
  byRun.set(runId, (byRun.get(runId) ?? 0) + 1);
}

export type QueueSql = {
  /** A queue's settings (with its owning project), or undefined. */
  queueGet(name: string): StoredQueue | undefined;
  /** The same, the queue's row locked for the rest of the transaction (PostgreSQL: FOR UPDATE). */
  queueGetForUpdate(name: string): StoredQueue | undefined;
  /**
   * The same, locked against other writers of the queue's settings but not against new jobs
   * (PostgreSQL: FOR NO KEY UPDATE: an enqueue's foreign key check does not wait for it).
   */
  queueGetForConfigure(name: string): StoredQueue | undefined;
  /** Inserts the queue with the defaults unless it exists; true when it inserted. */
  queueCreate(p: { name: string; defaults: QueueDefaults; now: number }): boolean;
  /** Every queue's settings, by name. */
  queueList(): StoredQueue[];
  /** Writes a queue's settings; a changed rate limit starts a full bucket again. */
  queueUpdate(p: QueueUpdate): void;
  /** Pauses or resumes a queue; false when there is no such queue. */
  queueSetPaused(p: { name: string; paused: boolean; now: number }): boolean;
  /** A queue's job counts by state, from the maintained counters. */
  queueCounts(name: string): JobCounts;
  /** Every queue's job counts, by queue name (a queue without jobs may be missing). */
  queueCountsAll(): Map<string, JobCounts>;
  /** A queue's queued jobs whose run time is still to come. */
  queueDelayed(p: { name: string; now: number }): number;
  /** The same for every queue, by name (a queue with none may be missing). */
  queueDelayedAll(now: number): Map<string, number>;
  /** A queue's waiting (queued or retrying) jobs that weigh more than `weight`: how many, and the heaviest one's weight (0 when none). */
  queueHeavierWaiting(p: { name: string; weight: number }): { count: number; heaviest: number };
  /** A queue's running jobs and all its jobs, counted from the jobs themselves as this transaction sees them. */
  queueJobsLeft(name: string): { running: number; total: number };
  /**
   * Deletes up to `limit` of the queue's jobs in `states` (never running ones): how many went, and
   * the workflow runs that lost jobs that had not ended, with how many each (their runs count them
   * as cancelled).
   */
  queuePurge(p: { name: string; states: JobState[]; limit: number }): PurgedJobs;
  /** Deletes the queue's row (and its counters). */
  queueDelete(name: string): void;
  /** Stores a queue's token bucket as of `refilledAt`. */
  queueSetRateState(p: { name: string; tokens: number; refilledAt: number }): void;
  /** Writes the retry rule (JSON text or null) and the expiry its jobs get by default. */
  queueSetRetryPolicy(p: QueueRetryPolicy): void;
  /** Writes a queue's priority ageing: `step` for every `everyMs` waited, or both null for none. */
  queueSetAgeing(p: { name: string; step: number | null; everyMs: number | null; now: number }): void;
  /**
   * Sets the priority claims order by of the queue's waiting (queued or retrying) jobs to the one
   * they set, raised by `step` for every whole `everyMs` since their run time, at most
   * `maxPriority`, keeping the one they set in `priority_set`; writes only the jobs whose value
   * changes (a job just due again after a retry drops back to the one it set). How many changed.
   */
  queueAgeJobs(p: { name: string; step: number; everyMs: number; maxPriority: number; now: number }): number;
  /** Gives every job of the queue whose priority ageing raised back the priority it set (ageing turned off); how many. */
  queueClearAgeing(name: string): number;
};

/** A queue's defaults for its jobs' retry rule and expiry. */
export type QueueRetryPolicy = {
  name: string;
  /** JSON text of the rule, or null for none. */
  retryRule: string | null;
  defaultExpireAfterMs: number | null;
  now: number;
};
