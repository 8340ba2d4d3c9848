/**
 * Statements over single jobs (../statements/jobs.ts), in PostgreSQL. Every statement that
 * changes a running job for its worker carries `state = 'running' AND worker_id = $w` in its
 * WHERE, and a user's action carries the states it may act on: the guard is checked on the row
 * as it is when the UPDATE reaches it (READ COMMITTED re-checks it after waiting for a
 * concurrent writer). The counters follow by trigger, so `from` in a transition is not needed.
 */
import type { AsyncPart } from '../statements';
import type { JobSql } from '../statements/jobs';
import { mapJob } from '../mappers';
import { int } from '../rows';
import type { PgTx } from './db';
import { JOB_COLUMNS } from './ops/common';

export const jobStatements: AsyncPart<PgTx, JobSql> = {
  async jobGet(tx, id) {
    const row = await tx.row(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id]);
    return row === undefined ? undefined : mapJob(row);
  },

  async jobGetForUpdate(tx, id) {
    const row = await tx.row(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1 FOR UPDATE`, [id]);
    return row === undefined ? undefined : mapJob(row);
  },

  async jobHeartbeat(tx, p) {
    const row = await tx.row(
      `UPDATE jobs SET lease_expires_at = greatest(lease_expires_at, $3), updated_at = $4
       WHERE id = $1 AND state = 'running' AND worker_id = $2
       RETURNING lease_expires_at, cancel_requested`,
      [p.id, p.workerId, p.lease, p.now],
    );
    return row === undefined ? undefined : { leaseExpiresAt: int(row, 'lease_expires_at'), cancelRequested: int(row, 'cancel_requested') !== 0 };
  },

  async jobSetProgress(tx, p) {
    const row = await tx.row(
      `UPDATE jobs SET progress = $3, progress_message = $4, updated_at = $5
       WHERE id = $1 AND state = 'running' AND worker_id = $2
       RETURNING ${JOB_COLUMNS}`,
      [p.id, p.workerId, p.percent, p.message, p.now],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  async jobSetCheckpoint(tx, p) {
    const changed = await tx.run(`UPDATE jobs SET checkpoint = $3, updated_at = $4 WHERE id = $1 AND state = 'running' AND worker_id = $2`, [
      p.id,
      p.workerId,
      p.checkpoint,
      p.now,
    ]);
    return changed > 0;
  },

  async jobCancelWaiting(tx, p) {
    const row = await tx.row(
      `UPDATE jobs SET state = 'cancelled', finished_at = $2, updated_at = $2
       WHERE id = $1 AND state IN ('queued', 'retrying') RETURNING ${JOB_COLUMNS}`,
      [p.id, p.now],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  async jobRequestCancel(tx, p) {
    const row = await tx.row(`UPDATE jobs SET cancel_requested = 1, updated_at = $2 WHERE id = $1 AND state = 'running' RETURNING ${JOB_COLUMNS}`, [p.id, p.now]);
    return row === undefined ? undefined : mapJob(row);
  },

  // The last attempt's worker and start time go: a queued job has neither (the history keeps them).
  async jobRetry(tx, p) {
    const row = await tx.row(
      `UPDATE jobs SET state = 'queued', attempts = 0, run_at = $2, worker_id = NULL, started_at = NULL, finished_at = NULL,
         last_error = NULL, result = NULL, progress = NULL, progress_message = NULL, cancel_requested = 0,
         checkpoint = CASE WHEN state = 'completed' THEN NULL ELSE checkpoint END, updated_at = $2
       WHERE id = $1 AND state IN ('dead', 'cancelled', 'completed') RETURNING ${JOB_COLUMNS}`,
      [p.id, p.now],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  async jobUpdate(tx, p) {
    const row = await tx.row(
      `UPDATE jobs SET priority = coalesce($2, priority), run_at = coalesce($3, run_at),
         payload = coalesce($4, payload), max_attempts = coalesce($5, max_attempts), tags = coalesce($6, tags), updated_at = $7
       WHERE id = $1 AND state IN ('queued', 'retrying') RETURNING ${JOB_COLUMNS}`,
      [p.id, p.priority, p.runAt, p.payload, p.maxAttempts, p.tags, p.now],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  async jobDelete(tx, id) {
    return (await tx.run(`DELETE FROM jobs WHERE id = $1 AND state <> 'running'`, [id])) > 0;
  },
};
