/**
 * Migration 1 of the PostgreSQL store: the whole schema, equivalent to the SQLite store's after
 * its eleven migrations. Times are BIGINT epoch milliseconds from the daemon's (injectable)
 * clock, as in SQLite, so that both stores pass one conformance suite; JSON is kept as TEXT,
 * as the daemon wrote it. Flags are 0/1 INTEGERs, so one set of row mappers serves both stores.
 *
 * The state machine is enforced by CHECK constraints as well as by the engine: the state set,
 * the attempt invariants, and that a running job always has a worker and a lease.
 *
 * Counts without a hot row: jobs per queue and state are kept in `queue_counts` by statement-level
 * triggers (one upsert per statement, whatever it moved), each backend writing its own shard
 * (`pg_backend_pid() % 64`), so that daemons claiming and completing at once never queue behind
 * one counter row; `stats` sums the shards and is exact. The per-minute finished figures are
 * sharded the same way.
 */
export const postgresInitialSchema = `
CREATE TABLE queues (
  name                 TEXT PRIMARY KEY,
  concurrency          INTEGER CHECK (concurrency IS NULL OR concurrency >= 1),
  rate_per_second      DOUBLE PRECISION CHECK (rate_per_second IS NULL OR rate_per_second > 0),
  rate_burst           INTEGER CHECK (rate_burst IS NULL OR rate_burst >= 1),
  -- The token bucket lives in the row, so every daemon on the database draws from the same one
  -- (inside the claim's transaction, with the row locked).
  rate_tokens          DOUBLE PRECISION,
  rate_refilled_at     BIGINT,
  paused               INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
  default_max_attempts INTEGER NOT NULL CHECK (default_max_attempts >= 1),
  backoff_strategy     TEXT NOT NULL CHECK (backoff_strategy IN ('exponential', 'linear', 'fixed')),
  backoff_base_ms      BIGINT NOT NULL CHECK (backoff_base_ms >= 0),
  backoff_cap_ms       BIGINT NOT NULL CHECK (backoff_cap_ms >= 0),
  backoff_jitter       DOUBLE PRECISION NOT NULL CHECK (backoff_jitter >= 0 AND backoff_jitter <= 1),
  default_timeout_ms   BIGINT NOT NULL CHECK (default_timeout_ms >= 1),
  retention_ms         BIGINT CHECK (retention_ms IS NULL OR retention_ms >= 0),
  limit_memory_bytes   BIGINT CHECK (limit_memory_bytes IS NULL OR limit_memory_bytes >= 1),
  limit_cpu_seconds    BIGINT CHECK (limit_cpu_seconds IS NULL OR limit_cpu_seconds >= 1),
  limit_open_files     BIGINT CHECK (limit_open_files IS NULL OR limit_open_files >= 1),
  limit_processes      BIGINT CHECK (limit_processes IS NULL OR limit_processes >= 1),
  created_at           BIGINT NOT NULL,
  updated_at           BIGINT NOT NULL
);

CREATE TABLE jobs (
  id               TEXT PRIMARY KEY,
  queue            TEXT NOT NULL REFERENCES queues (name),
  kind             TEXT NOT NULL,
  payload          TEXT NOT NULL,
  priority         INTEGER NOT NULL,
  weight           INTEGER NOT NULL DEFAULT 1 CHECK (weight >= 1),
  state            TEXT NOT NULL CHECK (state IN ('queued', 'running', 'retrying', 'completed', 'dead', 'cancelled')),
  run_at           BIGINT NOT NULL,
  attempts         INTEGER NOT NULL DEFAULT 0,
  max_attempts     INTEGER NOT NULL,
  -- Claims ever made of this job, across user retries; numbers its job_runs rows.
  runs             INTEGER NOT NULL DEFAULT 0 CHECK (runs >= 0),
  backoff_strategy TEXT NOT NULL CHECK (backoff_strategy IN ('exponential', 'linear', 'fixed')),
  backoff_base_ms  BIGINT NOT NULL,
  backoff_cap_ms   BIGINT NOT NULL,
  backoff_jitter   DOUBLE PRECISION NOT NULL,
  timeout_ms       BIGINT NOT NULL CHECK (timeout_ms >= 1),
  lease_expires_at BIGINT,
  worker_id        TEXT,
  -- The state a running job was claimed from (what a given-back attempt returns it to).
  claimed_from     TEXT CHECK (claimed_from IS NULL OR claimed_from IN ('queued', 'retrying')),
  idempotency_key  TEXT,
  progress         INTEGER CHECK (progress IS NULL OR (progress >= 0 AND progress <= 100)),
  progress_message TEXT,
  checkpoint       TEXT,
  result           TEXT,
  last_error       TEXT,
  cancel_requested INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
  tags             TEXT NOT NULL DEFAULT '[]',
  context          TEXT,
  output_seq       INTEGER NOT NULL DEFAULT 0,
  output_lines     INTEGER NOT NULL DEFAULT 0,
  output_dropped   INTEGER NOT NULL DEFAULT 0,
  created_at       BIGINT NOT NULL,
  updated_at       BIGINT NOT NULL,
  started_at       BIGINT,
  finished_at      BIGINT,
  CHECK (attempts >= 0 AND max_attempts >= 1 AND attempts <= max_attempts),
  CHECK ((state = 'running') = (worker_id IS NOT NULL AND lease_expires_at IS NOT NULL))
);
-- A hot, small table: updates leave room on the page (HOT updates), and autovacuum runs early.
ALTER TABLE jobs SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);

-- The claim path: waiting jobs in claim order (priority DESC, run_at, id) per queue.
CREATE INDEX jobs_claim ON jobs (queue, priority DESC, run_at, id) WHERE state IN ('queued', 'retrying');
-- Delayed counts and the next due time (nextWakeAt): only jobs created to run later.
CREATE INDEX jobs_due ON jobs (queue, state, run_at) WHERE state IN ('queued', 'retrying') AND run_at > created_at;
-- The reaper (running jobs by lease expiry).
CREATE INDEX jobs_lease ON jobs (lease_expires_at) WHERE state = 'running';
-- A worker's running jobs (its capacity, workers.list, recovery) and a queue's (its concurrency).
CREATE INDEX jobs_running_worker ON jobs (worker_id) WHERE state = 'running';
CREATE INDEX jobs_running_queue ON jobs (queue) WHERE state = 'running';
-- Idempotency: one job per key, across the database.
CREATE UNIQUE INDEX jobs_idempotency ON jobs (idempotency_key) WHERE idempotency_key IS NOT NULL;
-- Listings by queue and state, newest first (ids are UUIDv7), and retention, oldest first.
CREATE INDEX jobs_list ON jobs (queue, state, id) WHERE state <> 'running';
-- Jobs of a branch (jobs.list --branch).
CREATE INDEX jobs_branch ON jobs (((context::jsonb) ->> 'branch'), id) WHERE context IS NOT NULL;

CREATE TABLE job_runs (
  job_id      TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  run         INTEGER NOT NULL,
  attempt     INTEGER NOT NULL CHECK (attempt >= 1),
  worker_id   TEXT NOT NULL,
  started_at  BIGINT NOT NULL,
  finished_at BIGINT,
  outcome     TEXT NOT NULL CHECK (outcome IN ('running', 'completed', 'failed', 'lease_expired', 'cancelled', 'interrupted')),
  error       TEXT,
  stack       TEXT,
  exit_code   INTEGER,
  http_status INTEGER,
  PRIMARY KEY (job_id, run)
);

CREATE TABLE job_output (
  job_id  TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  run     INTEGER CHECK (run IS NULL OR run >= 1),
  stream  TEXT NOT NULL CHECK (stream IN ('stdout', 'stderr', 'log', 'marker')),
  text    TEXT NOT NULL,
  at      BIGINT NOT NULL,
  PRIMARY KEY (job_id, seq)
);

-- Jobs per queue and state, in shards (see above). A queue's rows go when the queue does.
CREATE TABLE queue_counts (
  queue TEXT NOT NULL,
  state TEXT NOT NULL,
  shard INTEGER NOT NULL,
  count BIGINT NOT NULL,
  PRIMARY KEY (queue, state, shard)
);

CREATE FUNCTION spool_count_jobs() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO queue_counts AS c (queue, state, shard, count)
      SELECT queue, state, pg_backend_pid() % 64, count(*) FROM new_rows GROUP BY queue, state ORDER BY queue, state
      ON CONFLICT (queue, state, shard) DO UPDATE SET count = c.count + EXCLUDED.count;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO queue_counts AS c (queue, state, shard, count)
      SELECT queue, state, pg_backend_pid() % 64, -count(*) FROM old_rows GROUP BY queue, state ORDER BY queue, state
      ON CONFLICT (queue, state, shard) DO UPDATE SET count = c.count + EXCLUDED.count;
  ELSE
    INSERT INTO queue_counts AS c (queue, state, shard, count)
      SELECT queue, state, pg_backend_pid() % 64, sum(delta) FROM (
        SELECT o.queue, o.state, -1 AS delta FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.state <> o.state OR n.queue <> o.queue
        UNION ALL
        SELECT n.queue, n.state, 1 AS delta FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.state <> o.state OR n.queue <> o.queue
      ) moved GROUP BY queue, state HAVING sum(delta) <> 0 ORDER BY queue, state
      ON CONFLICT (queue, state, shard) DO UPDATE SET count = c.count + EXCLUDED.count;
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER jobs_count_insert AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION spool_count_jobs();
CREATE TRIGGER jobs_count_delete AFTER DELETE ON jobs REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION spool_count_jobs();
CREATE TRIGGER jobs_count_update AFTER UPDATE ON jobs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION spool_count_jobs();

-- Finished attempts per 10-second bucket, sharded like the counts.
CREATE TABLE stat_buckets (
  bucket    BIGINT NOT NULL,
  shard     INTEGER NOT NULL,
  completed BIGINT NOT NULL DEFAULT 0,
  failed    BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (bucket, shard)
);

CREATE TABLE schedules (
  name           TEXT PRIMARY KEY,
  cron           TEXT NOT NULL,
  timezone       TEXT NOT NULL,
  queue          TEXT NOT NULL,
  job            TEXT NOT NULL,
  enabled        INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  missed_policy  TEXT NOT NULL CHECK (missed_policy IN ('skip', 'runOnce')),
  overlap_policy TEXT NOT NULL DEFAULT 'allow' CHECK (overlap_policy IN ('allow', 'skip')),
  template       TEXT,
  params         TEXT,
  next_run_at    BIGINT,
  last_run_at    BIGINT,
  last_job_id    TEXT,
  created_at     BIGINT NOT NULL,
  updated_at     BIGINT NOT NULL
);
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE enabled = 1;

-- The backstop behind the compare-and-swap on next_run_at: one job per schedule and fire time,
-- whatever a stale leader or a slow daemon believes.
CREATE TABLE schedule_fires (
  schedule TEXT NOT NULL,
  fire_at  BIGINT NOT NULL,
  job_id   TEXT,
  PRIMARY KEY (schedule, fire_at)
);

CREATE TABLE workers (
  id                TEXT PRIMARY KEY,
  type              TEXT NOT NULL CHECK (type IN ('builtin', 'remote')),
  name              TEXT,
  host              TEXT,
  pid               INTEGER,
  queues            TEXT NOT NULL DEFAULT '[]',
  kinds             TEXT NOT NULL DEFAULT '[]',
  concurrency       INTEGER,
  capacity          INTEGER CHECK (capacity IS NULL OR capacity >= 1),
  started_at        BIGINT NOT NULL,
  last_heartbeat_at BIGINT NOT NULL,
  alive             INTEGER NOT NULL DEFAULT 1 CHECK (alive IN (0, 1))
);

CREATE TABLE daemons (
  id            TEXT PRIMARY KEY,
  host          TEXT NOT NULL,
  pid           INTEGER NOT NULL,
  process_start TEXT,
  socket        TEXT NOT NULL,
  executor_id   TEXT NOT NULL,
  started_at    BIGINT NOT NULL,
  heartbeat_at  BIGINT NOT NULL,
  stopped_at    BIGINT
);

-- One row per role ('maintenance'): the daemon that holds it until expires_at (River's river_leader).
CREATE TABLE leaders (
  role       TEXT PRIMARY KEY,
  daemon_id  TEXT NOT NULL,
  elected_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);

CREATE TABLE managed_objects (
  type       TEXT NOT NULL CHECK (type IN ('queue', 'template', 'schedule')),
  name       TEXT NOT NULL,
  project    TEXT NOT NULL,
  applied    TEXT NOT NULL,
  applied_at BIGINT NOT NULL,
  PRIMARY KEY (type, name)
);

CREATE TABLE templates (
  name       TEXT PRIMARY KEY,
  queue      TEXT NOT NULL,
  kind       TEXT NOT NULL,
  body       TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE FUNCTION spool_unmanage() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM managed_objects m USING old_rows o WHERE m.type = TG_ARGV[0] AND m.name = o.name;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER queues_unmanage AFTER DELETE ON queues REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION spool_unmanage('queue');
CREATE TRIGGER templates_unmanage AFTER DELETE ON templates REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION spool_unmanage('template');
CREATE TRIGGER schedules_unmanage AFTER DELETE ON schedules REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION spool_unmanage('schedule');

CREATE TABLE tokens (
  name       TEXT PRIMARY KEY,
  scope      TEXT NOT NULL CHECK (scope IN ('admin', 'worker', 'read')),
  hash       TEXT NOT NULL UNIQUE CHECK (length(hash) = 64),
  created_at BIGINT NOT NULL
);
`;
