/**
 * Migration 5: the due index holds created_at.
 *
 * The delayed count (stats, queue listings) filters on `run_at > created_at`, the index's own
 * WHERE, so SQLite can use `jobs_due`; but with created_at missing from the index it looked up
 * every counted job's row as well. With a million delayed jobs a count took ~0.5 s; with the
 * column in the index it never reads the table and takes 80-150 ms (and DelayedCounts reuses it).
 */
export const dueIndexCoversDelayedCount = `
DROP INDEX jobs_due;
CREATE INDEX jobs_due ON jobs (queue, state, run_at, created_at) WHERE state IN ('queued', 'retrying') AND run_at > created_at;
`;
