/**
 * Migration 6: a completed attempt has no run row while its job stays completed.
 *
 * The job row already holds everything that row would (worker_id, started_at, finished_at, the
 * attempt and run numbers; a completion has no error, exit code or HTTP status), and leaving it
 * out spares the most common end of an attempt one B-tree write. The row is written if the job
 * leaves `completed` (a user's retry); the history read back puts the attempt in from the job
 * row until then (see daemon/storage/sqlite/runs.ts).
 *
 * Nothing in the schema changes, and rows written for completed attempts before this version
 * stay valid. The version is recorded all the same, so that an older Spool refuses the file
 * instead of reading histories that lack their completed attempt (a Spool checks the version
 * when it opens the file: stop older daemons on a file before upgrading it, as for every
 * migration).
 */
export const completedRunsInJobRow = `
-- No schema change: the meaning of job_runs changes (see above).
`;
