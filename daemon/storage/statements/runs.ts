/**
 * Statements over the run history (job_runs: one row per finished attempt) and the finished
 * figures of stats (see ./index.ts for the protocol).
 */
import type { JobRun } from '../../../shared/types';

export interface RunSql {
  /** A job's history: the finished runs, then its latest attempt as the job row describes it. */
  runsOfJob(jobId: string): JobRun[];
  /**
   * Writes the history row of a completed job's last attempt, which only its job row described;
   * called before the job leaves `completed`.
   */
  runKeepCompleted(jobId: string): void;
}
