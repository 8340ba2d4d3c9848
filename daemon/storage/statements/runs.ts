/**
 * Statements over the run history (job_runs: one row per finished attempt) and the finished
 * figures of stats (see ./index.ts for the protocol).
 */
import type { JobHistoryEvent } from '../../../shared/protocol';
import type { JobRun, JobState, RunOutcome } from '../../../shared/protocol/types';

/**
 * Width of a stat bucket, in ms: finished attempts are counted per bucket, and stats sum the
 * buckets of the last minute or hour. Both stores keep the same width, so their figures agree.
 */
export const BUCKET_MS = 10_000;

/** The end of a job's running attempt, as its history row records it. */
export type RunEnd = {
  jobId: string;
  outcome: Exclude<RunOutcome, 'running'>;
  error: string | null;
  stack: string | null;
  exitCode: number | null;
  httpStatus: number | null;
  /** When the run ended. */
  now: number;
};

/** A change of a job that leaves no run (a user's retry, hold, edit…), as jobs.history shows it. */
export type JobEventRow = {
  jobId: string;
  at: number;
  state: JobState;
  cause: string;
  who: string | null;
  attempt: number | null;
  detail: string | null;
};

export interface RunSql {
  /** A job's history: the finished runs, then its latest attempt as the job row describes it. */
  runsOfJob(jobId: string): JobRun[];
  /**
   * Writes the history row of a completed job's last attempt, which only its job row described;
   * called before the job leaves `completed`.
   */
  runKeepCompleted(jobId: string): void;
  /**
   * Writes the history row of the job's running attempt, ending at `p.now`. Call it before the
   * job row leaves 'running' (the row is read from it); does nothing for a job not running.
   */
  runRecord(p: RunEnd): void;
  /** Records a change of a job that leaves no run (job_events; they go with the job). */
  jobEventAdd(p: JobEventRow): void;
  /** A job's recorded changes, oldest first. */
  jobEventsOf(jobId: string): JobHistoryEvent[];
  /** Counts `n` finished attempts in their 10-second stats bucket. */
  statsCountFinished(p: { outcome: 'completed' | 'failed'; now: number; n: number }): void;
}
