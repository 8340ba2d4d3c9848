/**
 * Migration 2: dependencies between jobs, as SQLite's migration 12 (see it for the design): the
 * edge table keyed by the job waited for and indexed the other way, the counts on the job row,
 * the workflow columns, and `blocked` in the state CHECK. The counters need nothing: their
 * triggers count whatever states rows move between.
 */
export const postgresJobDependencies = `
ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_state_check CHECK (state IN ('blocked', 'queued', 'running', 'retrying', 'completed', 'dead', 'cancelled'));
ALTER TABLE jobs ADD COLUMN depends_on INTEGER NOT NULL DEFAULT 0 CHECK (depends_on >= 0);
ALTER TABLE jobs ADD COLUMN waiting_for INTEGER NOT NULL DEFAULT 0 CHECK (waiting_for >= 0);
ALTER TABLE jobs ADD COLUMN dependents INTEGER NOT NULL DEFAULT 0 CHECK (dependents >= 0);
ALTER TABLE jobs ADD COLUMN step TEXT;
ALTER TABLE jobs ADD COLUMN workflow_run_id TEXT;
ALTER TABLE jobs ADD CONSTRAINT jobs_waiting_check CHECK (waiting_for <= depends_on AND (state <> 'blocked' OR waiting_for > 0));
CREATE INDEX jobs_workflow_run ON jobs (workflow_run_id, id) WHERE workflow_run_id IS NOT NULL;

CREATE TABLE job_dependencies (
  depends_on_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  job_id        TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  on_condition  TEXT NOT NULL CHECK (on_condition IN ('succeeded', 'failed', 'finished')),
  resolved      INTEGER NOT NULL DEFAULT 0 CHECK (resolved IN (0, 1)),
  PRIMARY KEY (depends_on_id, job_id)
);
CREATE INDEX job_dependencies_job ON job_dependencies (job_id, depends_on_id);
`;
