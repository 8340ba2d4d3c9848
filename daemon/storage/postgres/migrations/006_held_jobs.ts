/**
 * Migration 6: the `held` state, a waiting job a user has put aside (jobs.hold) until released,
 * and the `settings` table of daemon-wide settings (`claimsPaused`), as SQLite's migration 16.
 * The counters need nothing: their triggers count whatever states rows move between.
 */
export const postgresHeldJobs = `
ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_state_check CHECK (state IN ('blocked', 'queued', 'running', 'retrying', 'held', 'completed', 'dead', 'cancelled'));
CREATE TABLE settings (
  name       TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);
`;
