/**
 * Statements over single jobs (../statements/jobs.ts), in PostgreSQL. Every statement that
 * changes a running job for its worker carries `state = 'running' AND worker_id = $w` in its
 * WHERE: the guard is checked on the row as it is when the UPDATE reaches it (READ COMMITTED
 * re-checks it after waiting for a concurrent writer).
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
};
