/**
 * Migration 21: the changes of a job that leave no run (a user's retry, cancel, hold, release,
 * edit, run now, pause and resume), with who made them, for `jobs.history`. Claims and the ends
 * of attempts stay in job_runs and the job row: nothing is written here on the hot path. Rows go
 * with their job.
 */
export const jobEvents = `
CREATE TABLE job_events (
  job_id  TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  at      INTEGER NOT NULL,
  state   TEXT NOT NULL,
  cause   TEXT NOT NULL,
  who     TEXT,
  attempt INTEGER,
  detail  TEXT
);
CREATE INDEX job_events_job ON job_events (job_id, seq);
`;
