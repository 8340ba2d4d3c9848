/**
 * Migration 3: the job counters are kept by the store instead of by row triggers.
 *
 * A row trigger runs two counter updates for every job a statement moves, so a claim of 50 jobs
 * ran 100 of them and a group commit of 1,000 enqueues 1,000. The store now adds up the changes
 * of a transaction and writes them once per queue and state before it commits (see
 * daemon/storage/sqlite/counts.ts); the counter values themselves carry over unchanged.
 *
 * `claimed_from` records the state a claim took the job from (queued or retrying): a claim is
 * one UPDATE … RETURNING, and RETURNING shows only the new row, so without it the claim could
 * not say which counter to take its jobs from.
 */
export const countersByStore = `
DROP TRIGGER jobs_count_insert;
DROP TRIGGER jobs_count_delete;
DROP TRIGGER jobs_count_update;
ALTER TABLE jobs ADD COLUMN claimed_from TEXT CHECK (claimed_from IS NULL OR claimed_from IN ('queued', 'retrying'));
`;
