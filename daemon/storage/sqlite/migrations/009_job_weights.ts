/**
 * Migration 9: job weights and worker capacities.
 *
 * A job's `weight` (1 by default) is how much of its queue's concurrency, and of its worker's
 * capacity, it takes while it runs: one heavy encode of weight 4 takes the room of four small
 * jobs. Every job written before this version weighs 1, which is what it counted as before.
 *
 * A queue's concurrency check needs the weight its running jobs hold. The running count is
 * already kept (queue_counts); `running_extra_weight` keeps what the running jobs weigh beyond
 * one each (the sum of weight - 1), so jobs of the default weight never write it and the claim
 * of such jobs costs no more than it did. The store keeps it in the same transaction as the
 * state changes it follows (counts.ts). It has no CHECK (>= 0): a Spool from before this version
 * running on the same file claims heavy jobs without counting them, and a newer one ending such
 * a job must not fail its complete over a counter; readers treat a negative sum as none.
 *
 * A worker's `capacity` (NULL: none declared) bounds the weight of the jobs it holds at once.
 *
 * `jobs_branch`: listings and bulk actions filter by the git branch a job was enqueued from
 * (recorded in its context). Partial, so jobs enqueued with no branch (workers' and schedules'
 * jobs, most of a busy queue's) cost it nothing; jobs with one pay one more index entry.
 *
 * `daemons`: every daemon running on this file records itself (pid, the process's start time as
 * the kernel counts it, host, socket, the worker id of its built-in executors) and keeps a
 * heartbeat. A daemon starting on another socket can then tell which of its predecessors are
 * dead (pid gone, or reused by a process that started at another time) and recover the jobs
 * their executors left running, without ever touching those of a daemon that is still alive;
 * and an interrupted run ends at its daemon's last heartbeat rather than at the recovery.
 */
export const jobWeights = `
ALTER TABLE jobs ADD COLUMN weight INTEGER NOT NULL DEFAULT 1 CHECK (weight >= 1);
ALTER TABLE queues ADD COLUMN running_extra_weight INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workers ADD COLUMN capacity INTEGER CHECK (capacity IS NULL OR capacity >= 1);
CREATE TABLE daemons (
  id            TEXT PRIMARY KEY,
  host          TEXT NOT NULL,
  pid           INTEGER NOT NULL,
  process_start TEXT,
  socket        TEXT NOT NULL,
  executor_id   TEXT NOT NULL,
  started_at    INTEGER NOT NULL,
  heartbeat_at  INTEGER NOT NULL,
  stopped_at    INTEGER
) STRICT;
CREATE INDEX jobs_branch ON jobs (json_extract(context, '$.branch'), id) WHERE json_extract(context, '$.branch') IS NOT NULL;
`;
