/**
 * Migration 7: each output line records the run that wrote it (the job's `runs` count when the
 * line was written: 1 for its first claim, counting on across retries and interruptions, as
 * `job_runs.run` does).
 *
 * Attempt numbers alone could not tell two runs' lines apart: a user's retry starts again at
 * attempt 1, and an interrupted attempt (a worker's release, a daemon restart) is run again
 * under the same number, so the output of two runs read as one. Lines written before this
 * version have no run (NULL, read as run 0): which run wrote them is not known, and guessing
 * from their attempt number would contradict the run history of a retried job.
 */
export const outputLinesCarryTheirRun = `
ALTER TABLE job_output ADD COLUMN run INTEGER CHECK (run IS NULL OR run >= 1);
`;
