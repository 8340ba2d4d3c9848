/**
 * Migration 2: a job's run history gets its row when the attempt ends, not when it starts.
 *
 * The running attempt is fully described by the job row (worker_id, attempts, runs,
 * started_at), so writing a `running` row at claim time and rewriting it at the end wrote
 * the same facts twice, and a claim wrote one B-tree more than it had to. Listings of a job's
 * runs show the running attempt from the job row (see RunStatements.ofJob). Rows left
 * `running` by an older Spool describe exactly what the job row says, so they go.
 */
export const runsWhenFinished = `
DELETE FROM job_runs WHERE outcome = 'running';
`;
