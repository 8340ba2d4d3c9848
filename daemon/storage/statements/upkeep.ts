/**
 * Statements of upkeep (see ./index.ts for the protocol): the finished figures of stats,
 * retention, the check of the maintained counters, and what the daemon's wake-up time is
 * computed from (the engine adds the rate limits' token math: daemon/engine/ops/upkeep.ts).
 */
import type { JobCounts, JobState, RateLimit } from '../../../shared/protocol/types';
import type { QueueRateState } from './queues';

/** A rate-limited queue that is not paused and has jobs waiting, with its stored token bucket. */
export type RateLimitedQueue = { name: string; rateLimit: RateLimit; bucket: QueueRateState };

/** A batch of retention: finished jobs of one queue that finished before `cutoff`. */
export type JobRetention = {
  queue: string;
  cutoff: number;
  /** The smallest id a job created at `cutoff` can have: only jobs with smaller ids are looked at. */
  beforeId: string;
  limit: number;
};

export interface UpkeepSql {
  /** Completed and failed attempts in the stat buckets overlapping the last `windowMs`. */
  statsFinishedSince(p: { now: number; windowMs: number }): { completed: number; failed: number };
  /** Deletes the stat buckets that ended before `olderThan` (epoch ms). */
  statsPrune(olderThan: number): void;
  /** Every queue's maintained counters, by queue name. */
  counterAll(): Map<string, JobCounts>;
  /** The counts by a full scan of jobs: only for verifying the maintained counters. */
  counterRecount(): { queue: string; state: JobState; count: number }[];
  /**
   * Deletes up to `limit` finished jobs of the queue that finished before `cutoff`, oldest
   * first; how many. Ids are UUIDv7 of the creation time, and a job is created before it
   * finishes: `beforeId` bounds the walk.
   */
  jobDeleteExpired(p: JobRetention): number;
  /**
   * The earliest time after `now` that a delayed or retrying job of a queue that is not paused
   * becomes due, a running job's lease expires or an enabled schedule fires; null if none.
   */
  wakeDueAt(now: number): number | null;
  /** The queues whose next job may wait for a rate limit's token: not paused, rate-limited, with jobs queued or retrying. */
  wakeRateLimited(): RateLimitedQueue[];
  /** Deletes up to `limit` records of fires before `olderThan`. */
  scheduleFiresPrune(p: { olderThan: number; limit: number }): void;
}
