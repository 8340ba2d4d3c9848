/**
 * Migration 15: unique jobs, debounce and throttle.
 *
 * `unique_locks` holds one row per "such job": the hash of a rule and of the parts of the job
 * its `by` names, the job that holds the place, and until when (see
 * daemon/storage/statements/unique.ts). Keyed by the hash, so that the enqueue finds or takes
 * the place with one read or write of the primary key. `jobs.uniqueness` is the rule a job was
 * enqueued with (JSON), shown on its page; NULL for a job without one.
 */
export const uniqueJobs = `
CREATE TABLE unique_locks (
  hash   TEXT NOT NULL PRIMARY KEY,
  job_id TEXT NOT NULL,
  until  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX unique_locks_until ON unique_locks (until);
ALTER TABLE jobs ADD COLUMN uniqueness TEXT;
`;
