/**
 * Migration 5: unique jobs, debounce and throttle, as SQLite's migration 15 (see it for the
 * design). The primary key on the hash is what makes two daemons enqueueing the same unique job
 * at once end with one job: the second insert waits for the first transaction and then finds
 * the row.
 */
export const postgresUniqueJobs = `
CREATE TABLE unique_locks (
  hash   TEXT NOT NULL PRIMARY KEY,
  job_id TEXT NOT NULL,
  until  BIGINT NOT NULL
);
CREATE INDEX unique_locks_until ON unique_locks (until);
ALTER TABLE jobs ADD COLUMN uniqueness TEXT;
`;
