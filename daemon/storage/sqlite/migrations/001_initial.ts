/**
 * Migration 1: the whole first schema. Later migrations change parts of it: run rows are written
 * when an attempt ends (002), the counter triggers below are replaced by the store (003), and
 * the listing index leaves running jobs out (004).
 *
 * The state machine is enforced by the schema as well as by the engine: `CHECK` constraints
 * hold the state set and the attempt invariants, and a running job always has a worker and a
 * lease. Indexes are partial where a path only ever looks at some states, so each one stays as
 * small as the work it serves (a million completed jobs cost the claim index nothing).
 */
export const sqliteInitialSchema = `
CREATE TABLE queues (
  name                 TEXT PRIMARY KEY,
  concurrency          INTEGER CHECK (concurrency IS NULL OR concurrency >= 1),
  rate_per_second      REAL CHECK (rate_per_second IS NULL OR rate_per_second > 0),
  rate_burst           INTEGER CHECK (rate_burst IS NULL OR rate_burst >= 1),
  -- Token bucket state lives here, not in memory, so two processes on one file agree on it.
  rate_tokens          REAL,
  rate_refilled_at     INTEGER,
  paused               INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
  default_max_attempts INTEGER NOT NULL CHECK (default_max_attempts >= 1),
  backoff_strategy     TEXT NOT NULL CHECK (backoff_strategy IN ('exponential', 'linear', 'fixed')),
  backoff_base_ms      INTEGER NOT NULL CHECK (backoff_base_ms >= 0),
  backoff_cap_ms       INTEGER NOT NULL CHECK (backoff_cap_ms >= 0),
  backoff_jitter       REAL NOT NULL CHECK (backoff_jitter >= 0 AND backoff_jitter <= 1),
  default_timeout_ms   INTEGER NOT NULL CHECK (default_timeout_ms >= 1),
  retention_ms         INTEGER CHECK (retention_ms IS NULL OR retention_ms >= 0),
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL
) STRICT;

CREATE TABLE jobs (
  id               TEXT NOT NULL PRIMARY KEY,
  queue            TEXT NOT NULL REFERENCES queues (name),
  kind             TEXT NOT NULL,
  payload          TEXT NOT NULL,
  priority         INTEGER NOT NULL,
  state            TEXT NOT NULL CHECK (state IN ('queued', 'running', 'retrying', 'completed', 'dead', 'cancelled')),
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
  CHECK (attempts >= 0 AND max_attempts >= 1 AND attempts <= max_attempts),
  CHECK ((state = 'running') = (worker_id IS NOT NULL AND lease_expires_at IS NOT NULL))
) STRICT, WITHOUT ROWID;
-- WITHOUT ROWID: the rows live in the id B-tree itself, so an enqueue writes one B-tree fewer
-- than a rowid table plus a unique index on id would (every page touched is a page the commit
-- writes to the WAL). The secondary indexes below end in id already, so they grow no larger.

-- The claim path. Column directions match the claim's ORDER BY priority DESC, run_at, id
-- exactly; with any other direction SQLite sorts the whole backlog on every claim.
CREATE INDEX jobs_claim ON jobs (queue, priority DESC, run_at, id) WHERE state IN ('queued', 'retrying');
-- Delayed counts and the next due time per queue (nextWakeAt), both range scans on run_at.
-- Only jobs whose run time lies after their creation can ever be in the future, so a job
-- enqueued to run at once (the common case) stays out of this index and costs it nothing.
CREATE INDEX jobs_due ON jobs (queue, state, run_at) WHERE state IN ('queued', 'retrying') AND run_at > created_at;
-- The reaper (running jobs by lease expiry), and a worker's running jobs (workers.list,
-- start-up recovery), which scan the running set: it is as small as the work in progress.
CREATE INDEX jobs_lease ON jobs (lease_expires_at, worker_id) WHERE state = 'running';
-- Idempotency: one job per key, across the database.
CREATE UNIQUE INDEX jobs_idempotency ON jobs (idempotency_key) WHERE idempotency_key IS NOT NULL;
-- Listings by queue and state, newest first (ids are UUIDv7, so id order is creation order),
-- and retention, which looks for old finished jobs per queue oldest first through it too.
CREATE INDEX jobs_list ON jobs (queue, state, id);

CREATE TABLE job_runs (
  job_id      TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  run         INTEGER NOT NULL,
  attempt     INTEGER NOT NULL CHECK (attempt >= 1),
  worker_id   TEXT NOT NULL,
  started_at  INTEGER NOT NULL,
  finished_at INTEGER,
  outcome     TEXT NOT NULL CHECK (outcome IN ('running', 'completed', 'failed', 'lease_expired', 'cancelled', 'interrupted')),
  error       TEXT,
  stack       TEXT,
  exit_code   INTEGER,
  http_status INTEGER,
  PRIMARY KEY (job_id, run)
) STRICT, WITHOUT ROWID;

CREATE TABLE job_output (
  job_id  TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  stream  TEXT NOT NULL CHECK (stream IN ('stdout', 'stderr', 'log', 'marker')),
  text    TEXT NOT NULL,
  at      INTEGER NOT NULL,
  PRIMARY KEY (job_id, seq)
) STRICT, WITHOUT ROWID;

-- Jobs per queue and state, kept by the triggers below in the same transaction as every
-- change to a job's state, so stats cost O(queues) however many jobs there are.
CREATE TABLE queue_counts (
  queue TEXT NOT NULL REFERENCES queues (name) ON DELETE CASCADE,
  state TEXT NOT NULL,
  count INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (queue, state)
) STRICT, WITHOUT ROWID;

-- Triggers rather than explicit updates in the engine: every statement that inserts, deletes or
-- moves jobs — a claim's UPDATE … RETURNING (which cannot report the previous state), a purge's
-- bulk DELETE, retention, a cascade — is counted by construction, and no future code path can
-- forget to. A queue gets its six rows when it is created, so the triggers are plain UPDATEs.
CREATE TRIGGER queues_counts_init AFTER INSERT ON queues BEGIN
  INSERT INTO queue_counts (queue, state) VALUES
    (new.name, 'queued'), (new.name, 'running'), (new.name, 'retrying'),
    (new.name, 'completed'), (new.name, 'dead'), (new.name, 'cancelled');
END;
CREATE TRIGGER jobs_count_insert AFTER INSERT ON jobs BEGIN
  UPDATE queue_counts SET count = count + 1 WHERE queue = new.queue AND state = new.state;
END;
CREATE TRIGGER jobs_count_delete AFTER DELETE ON jobs BEGIN
  UPDATE queue_counts SET count = count - 1 WHERE queue = old.queue AND state = old.state;
END;
CREATE TRIGGER jobs_count_update AFTER UPDATE OF state, queue ON jobs
  WHEN old.state IS NOT new.state OR old.queue IS NOT new.queue BEGIN
  UPDATE queue_counts SET count = count - 1 WHERE queue = old.queue AND state = old.state;
  UPDATE queue_counts SET count = count + 1 WHERE queue = new.queue AND state = new.state;
END;

-- Finished attempts per 10-second bucket, for the "last minute / last hour" figures of stats
-- without scanning job_runs. Buckets older than an hour are pruned by retention cleanup.
CREATE TABLE stat_buckets (
  bucket    INTEGER PRIMARY KEY,
  completed INTEGER NOT NULL DEFAULT 0,
  failed    INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE schedules (
  name          TEXT PRIMARY KEY,
  cron          TEXT NOT NULL,
  timezone      TEXT NOT NULL,
  queue         TEXT NOT NULL,
  job           TEXT NOT NULL,
  enabled       INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  missed_policy TEXT NOT NULL CHECK (missed_policy IN ('skip', 'runOnce')),
  next_run_at   INTEGER,
  last_run_at   INTEGER,
  last_job_id   TEXT,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE enabled = 1;

CREATE TABLE workers (
  id                TEXT PRIMARY KEY,
  type              TEXT NOT NULL CHECK (type IN ('builtin', 'remote')),
  name              TEXT,
  host              TEXT,
  pid               INTEGER,
  queues            TEXT NOT NULL DEFAULT '[]',
  kinds             TEXT NOT NULL DEFAULT '[]',
  concurrency       INTEGER,
  started_at        INTEGER NOT NULL,
  last_heartbeat_at INTEGER NOT NULL,
  alive             INTEGER NOT NULL DEFAULT 1 CHECK (alive IN (0, 1))
) STRICT;
`;
