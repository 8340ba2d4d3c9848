/**
 * Statements over queues (see ./index.ts for the protocol): their settings and counters.
 */
import type { Backoff, JobCounts, JobState, Queue } from '../../../shared/types';
import type { QueueSettings } from '../mappers';

/** The settings a queue gets when its first job creates it (the engine's policy). */
export type QueueDefaults = {
  concurrency: number | null;
  maxAttempts: number;
  backoff: Backoff;
  timeoutMs: number;
  retentionMs: number | null;
};

/** A queue's settings as a configure writes them (the pause is apart: queueSetPaused). */
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
  now: number;
};

export interface QueueSql {
  /** A queue's settings, or undefined. */
  queueGet(name: string): QueueSettings | undefined;
  /** A queue's settings, its row locked for the rest of the transaction (PostgreSQL: FOR UPDATE). */
  queueGetForUpdate(name: string): QueueSettings | undefined;
  /** Inserts the queue with the defaults unless it exists; true when it inserted. */
  queueCreate(p: { name: string; defaults: QueueDefaults; now: number }): boolean;
  /** Every queue's settings with its owner, by name. */
  queueListSettings(): QueueSettings[];
  /** Every queue with its counts (from the maintained counters), its delayed count and its owner, by name. */
  queueList(now: number): Queue[];
  /** A queue's counts by state, from the maintained counters. */
  queueCounts(name: string): JobCounts;
  /** Rewrites a queue's settings; a changed rate limit starts a full bucket again. */
  queueUpdate(p: QueueUpdate): void;
  /** Pauses or resumes a queue; false when there is no such queue. */
  queueSetPaused(p: { name: string; paused: boolean; now: number }): boolean;
  /** Deletes up to `limit` of the queue's jobs in these states (never running ones); how many. */
  queuePurge(p: { name: string; states: JobState[]; limit: number }): number;
  /** Deletes the queue's row (its jobs must be gone); false when there was none. */
  queueDelete(name: string): boolean;
}
