/**
 * Migration 11: the changes of a job that leave no run, with who made them, as SQLite's
 * migration 21. Rows go with their job.
 */
export const postgresJobEvents = `
CREATE TABLE job_events (
  seq     BIGSERIAL PRIMARY KEY,
  job_id  TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  at      BIGINT NOT NULL,
  state   TEXT NOT NULL,
  cause   TEXT NOT NULL,
  who     TEXT,
  attempt INTEGER,
  detail  TEXT
);
CREATE INDEX job_events_job ON job_events (job_id, seq);
`;
