/**
 * Statements that end a running attempt on the job row, or find the running jobs an ending is
 * for (see ./index.ts for the protocol): complete (one and many), the general ending of fail,
 * cancel and the reaper, the interruption that gives an attempt back, and the running jobs of
 * expired leases and of stopped workers. Every statement that ends a worker's attempt carries
 * `state = 'running' AND worker_id = workerId` in its WHERE, so that a worker whose lease
 * expired changes nothing, whatever it read before.
 */
import type { Job, JobState } from '../../../shared/protocol/types';

/** The complete of one attempt. */
export type JobComplete = {
  id: string;
  workerId: string;
  /** The result as JSON text; null keeps the stored one. */
  result: string | null;
  now: number;
};

/** One item of a completeMany; the ids of one call must be distinct. */
export type JobCompleteItem = { id: string; workerId: string; result: string | null };

/**
 * What a job change carries to the engine's listeners (its event, the metrics): a whole Job, or
 * the part of one a statement that does not read the whole row returns (CompletedJob).
 */
export type ChangedJob = Pick<
  Job,
  'id' | 'queue' | 'kind' | 'state' | 'attempts' | 'maxAttempts' | 'progress' | 'runAt' | 'cancelRequested' | 'workflowRunId' | 'pausedAt' | 'createdAt' | 'updatedAt' | 'startedAt'
>;

/**
 * A job as jobCompleteBatch returns it: what its change event, the metrics and the queue history
 * need, without the payload, result and the other columns a whole job carries.
 */
export type CompletedJob = ChangedJob & Pick<Job, 'weight' | 'dependents'>;

/** How a running attempt ends, from the job row's side. */
export type JobAttemptEnd = {
  id: string;
  workerId: string;
  state: JobState;
  runAt: number;
  lastError: string | null;
  /** The result as JSON text; null keeps the stored one. */
  result: string | null;
  /** When the job finished (a terminal state), else null. */
  finishedAt: number | null;
  now: number;
};

/** A running job given back: retrying at `runAt` (now, but for a snooze), its attempt given back, `reason` its last error. */
export type JobInterrupt = { id: string; now: number; runAt: number; reason: string };

export type AttemptSql = {
  /**
   * Ends the attempt `workerId` runs as completed, with no read before, and counts it in the
   * finished figures of stats: the one statement of the most common call. Undefined (and
   * nothing counted) when `workerId` does not hold the lease. The job row stays the record of
   * the completed attempt (no history row, see ./runs.ts).
   */
  jobComplete(p: JobComplete): Job | undefined;
  /**
   * `jobComplete` for many jobs in one statement, counted once: the jobs completed, in no
   * particular order; an item missing from them was not completed (its worker does not hold
   * the lease). The ids must be distinct.
   */
  jobCompleteMany(p: { items: readonly JobCompleteItem[]; now: number }): Job[];
  /**
   * `jobCompleteMany` returning each completed job as a CompletedJob, not whole: for
   * jobs.completeMany, whose answer sends no job back (a job row read whole costs SQLite about as
   * much again as the update).
   */
  jobCompleteBatch(p: { items: readonly JobCompleteItem[]; now: number }): CompletedJob[];
  /**
   * Ends the running attempt of `job` (as read in this transaction, its row locked) held by
   * `p.workerId`; the lease is cleared and worker_id stays, so a finished job still says who ran
   * it last. The job as the update leaves it, or undefined if `p.workerId` does not hold it.
   */
  jobEndAttempt(job: Job, p: JobAttemptEnd): Job | undefined;
  /** A running job back to retrying at `runAt`, its attempt given back; undefined if it is not running. */
  jobInterrupt(p: JobInterrupt): Job | undefined;
  /** Up to `limit` running jobs whose lease ran out by `now`, soonest expired first, locked for the reaper. */
  jobExpiredLeases(p: { now: number; limit: number }): Job[];
  /** The jobs running under these workers, locked, for start-up recovery. */
  jobRunningForUpdate(workerIds: readonly string[]): Job[];
  /** The ids of the jobs running under these workers, in id order. */
  jobRunningIds(workerIds: readonly string[]): string[];
};
