/**
 * Statements over single jobs (../statements/jobs.ts), in PostgreSQL. Every statement that
 * changes a running job for its worker carries `state = 'running' AND worker_id = $w` in its
 * WHERE: the guard is checked on the row as it is when the UPDATE reaches it (READ COMMITTED
 * re-checks it after waiting for a concurrent writer).
 */
import type { Job } from '../../../shared/types';
import type { AsyncPart } from '../statements';
import type { JobInsert, JobSql } from '../statements/jobs';
import { mapJob, newJob } from '../mappers';
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

  async jobInsert(tx, row) {
    return (await insertJobs(tx, [row]))[0];
  },

  async jobInsertMany(tx, rows) {
    return insertJobs(tx, rows);
  },

  async jobGetByIdempotencyKey(tx, key) {
    const row = await tx.row(`SELECT ${JOB_COLUMNS} FROM jobs WHERE idempotency_key = $1`, [key]);
    return row === undefined ? undefined : mapJob(row);
  },

  async jobGetByIdempotencyKeys(tx, keys) {
    return (await tx.rows(`SELECT ${JOB_COLUMNS} FROM jobs WHERE idempotency_key = ANY($1::text[])`, [keys])).map(mapJob);
  },
};

/**
 * Inserts new jobs in one statement (arrays unnested: one round trip whatever the count). A job
 * whose idempotency key another transaction inserted meanwhile is not inserted (ON CONFLICT DO
 * NOTHING, after waiting for that transaction to commit): its place holds undefined, and the
 * caller reads the winner.
 */
async function insertJobs(tx: PgTx, rows: readonly JobInsert[]): Promise<(Job | undefined)[]> {
  if (rows.length === 0) return [];
  const col = <K extends keyof JobInsert>(k: K): JobInsert[K][] => rows.map((r) => r[k]);
  const inserted = await tx.rows(
    `INSERT INTO jobs (id, queue, kind, payload, priority, weight, state, run_at, max_attempts, backoff_strategy, backoff_base_ms,
       backoff_cap_ms, backoff_jitter, timeout_ms, idempotency_key, tags, context, created_at, updated_at)
     SELECT id, queue, kind, payload, priority, weight, 'queued', run_at, max_attempts, backoff_strategy, backoff_base_ms,
       backoff_cap_ms, backoff_jitter, timeout_ms, idempotency_key, tags, context, $18, $18
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::bigint[], $8::int[], $9::text[],
       $10::bigint[], $11::bigint[], $12::float8[], $13::bigint[], $14::text[], $15::text[], $16::text[], $17::bigint[])
       AS t(id, queue, kind, payload, priority, weight, run_at, max_attempts, backoff_strategy, backoff_base_ms,
         backoff_cap_ms, backoff_jitter, timeout_ms, idempotency_key, tags, context, ord)
     ORDER BY ord
     ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING id`,
    [
      col('id'), col('queue'), col('kind'), col('payload'), col('priority'), col('weight'), col('runAt'), col('maxAttempts'),
      col('backoffStrategy'), col('backoffBaseMs'), col('backoffCapMs'), col('backoffJitter'), col('timeoutMs'),
      col('idempotencyKey'), col('tags'), col('context'), rows.map((_, i) => i), rows[0]?.now ?? tx.now(),
    ],
  );
  const ids = new Set(inserted.map((r) => r.get('id')));
  return rows.map((r) => (ids.has(r.id) ? newJob(r) : undefined));
}
