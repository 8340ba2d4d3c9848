/**
 * Migration 12: dependencies between jobs.
 *
 * `job_dependencies` holds one row per edge (a job waits for another), keyed by the job waited
 * for, so that the jobs waiting for one that ends are found by one range read, and indexed the
 * other way for a job's own dependencies. `resolved` says the edge's job has ended and been
 * counted: a job that ends again after a user's retry is never counted twice.
 *
 * On the job row: `depends_on` (edges it has), `waiting_for` (of them, not yet ended: the job is
 * `blocked` while above 0, and is queued by the statement that brings it to 0, so making jobs
 * ready costs O(dependents) of the job that ended, never a scan of blocked jobs), `dependents`
 * (edges to it: a job with none skips the look-up when it ends), `step` and `workflow_run_id`
 * (for workflows, null otherwise).
 *
 * The state CHECK gains `blocked`. SQLite cannot change a CHECK in place (and the connection's
 * defensive mode forbids editing the schema text), so the jobs table is rebuilt as SQLite's
 * ALTER TABLE page describes: new table, copy, drop, rename, indexes again. It runs with foreign
 * keys off (see Migration.foreignKeysOff): dropping the old table must not cascade to runs and
 * output, which refer to the table by name and find the new one.
 */
export const jobDependencies = `
CREATE TABLE jobs_new (
  id               TEXT NOT NULL PRIMARY KEY,
  queue            TEXT NOT NULL REFERENCES queues (name),
  kind             TEXT NOT NULL,
  payload          TEXT NOT NULL,
  priority         INTEGER NOT NULL,
  state            TEXT NOT NULL CHECK (state IN ('blocked', 'queued', 'running', 'retrying', 'completed', 'dead', 'cancelled')),
  run_at           INTEGER NOT NULL,
  attempts         INTEGER NOT NULL DEFAULT 0,
  max_attempts     INTEGER NOT NULL,
  -- Claims ever made of this job, across user retries; numbers its job_runs rows.
  runs             INTEGER NOT NULL DEFAULT 0 CHECK (runs >= 0),
  backoff_strategy TEXT NOT NULL CHECK (backoff_strategy IN ('exponential', 'linear', 'fixed')),
  backoff_base_ms  INTEGER NOT NULL,
  backoff_cap_ms   INTEGER NOT NULL,
  backoff_jitter   REAL NOT NULL,
  timeout_ms       INTEGER NOT NULL CHECK (timeout_ms >= 1),
  lease_expires_at INTEGER,
  worker_id        TEXT,
  idempotency_key  TEXT,
  progress         INTEGER CHECK (progress IS NULL OR (progress >= 0 AND progress <= 100)),
  progress_message TEXT,
  checkpoint       TEXT,
  result           TEXT,
  last_error       TEXT,
  cancel_requested INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
  tags             TEXT NOT NULL DEFAULT '[]',
  context          TEXT,
  -- Output bookkeeping: the last seq written, lines kept, and lines dropped by the cap.
  output_seq       INTEGER NOT NULL DEFAULT 0,
  output_lines     INTEGER NOT NULL DEFAULT 0,
  output_dropped   INTEGER NOT NULL DEFAULT 0,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  started_at       INTEGER,
  finished_at      INTEGER,
  claimed_from     TEXT CHECK (claimed_from IS NULL OR claimed_from IN ('queued', 'retrying')),
  weight           INTEGER NOT NULL DEFAULT 1 CHECK (weight >= 1),
  depends_on       INTEGER NOT NULL DEFAULT 0 CHECK (depends_on >= 0),
  waiting_for      INTEGER NOT NULL DEFAULT 0 CHECK (waiting_for >= 0 AND waiting_for <= depends_on),
  dependents       INTEGER NOT NULL DEFAULT 0 CHECK (dependents >= 0),
  step             TEXT,
  workflow_run_id  TEXT,
  CHECK (attempts >= 0 AND max_attempts >= 1 AND attempts <= max_attempts),
  CHECK ((state = 'running') = (worker_id IS NOT NULL AND lease_expires_at IS NOT NULL)),
  CHECK (state <> 'blocked' OR waiting_for > 0)
) STRICT, WITHOUT ROWID;

INSERT INTO jobs_new (id, queue, kind, payload, priority, state, run_at, attempts, max_attempts, runs, backoff_strategy,
  backoff_base_ms, backoff_cap_ms, backoff_jitter, timeout_ms, lease_expires_at, worker_id, idempotency_key, progress,
  progress_message, checkpoint, result, last_error, cancel_requested, tags, context, output_seq, output_lines,
  output_dropped, created_at, updated_at, started_at, finished_at, claimed_from, weight)
SELECT id, queue, kind, payload, priority, state, run_at, attempts, max_attempts, runs, backoff_strategy,
  backoff_base_ms, backoff_cap_ms, backoff_jitter, timeout_ms, lease_expires_at, worker_id, idempotency_key, progress,
  progress_message, checkpoint, result, last_error, cancel_requested, tags, context, output_seq, output_lines,
  output_dropped, created_at, updated_at, started_at, finished_at, claimed_from, weight
FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;

CREATE INDEX jobs_claim ON jobs (queue, priority DESC, run_at, id) WHERE state IN ('queued', 'retrying');
CREATE INDEX jobs_due ON jobs (queue, state, run_at, created_at) WHERE state IN ('queued', 'retrying') AND run_at > created_at;
CREATE INDEX jobs_lease ON jobs (lease_expires_at, worker_id) WHERE state = 'running';
CREATE UNIQUE INDEX jobs_idempotency ON jobs (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX jobs_list ON jobs (queue, state, id) WHERE state <> 'running';
CREATE INDEX jobs_branch ON jobs (json_extract(context, '$.branch'), id) WHERE json_extract(context, '$.branch') IS NOT NULL;
-- A workflow run's jobs.
CREATE INDEX jobs_workflow_run ON jobs (workflow_run_id, id) WHERE workflow_run_id IS NOT NULL;

CREATE TABLE job_dependencies (
  depends_on_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  job_id        TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  on_condition  TEXT NOT NULL CHECK (on_condition IN ('succeeded', 'failed', 'finished')),
  resolved      INTEGER NOT NULL DEFAULT 0 CHECK (resolved IN (0, 1)),
  PRIMARY KEY (depends_on_id, job_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX job_dependencies_job ON job_dependencies (job_id, depends_on_id);

INSERT INTO queue_counts (queue, state) SELECT name, 'blocked' FROM queues;
DROP TRIGGER queues_counts_init;
CREATE TRIGGER queues_counts_init AFTER INSERT ON queues BEGIN
  INSERT INTO queue_counts (queue, state) VALUES
    (new.name, 'blocked'), (new.name, 'queued'), (new.name, 'running'), (new.name, 'retrying'),
    (new.name, 'completed'), (new.name, 'dead'), (new.name, 'cancelled');
END;
`;
