/**
 * Statements over single jobs (../statements/jobs.ts), in PostgreSQL. Every statement that
 * changes a running job for its worker carries `state = 'running' AND worker_id = $w` in its
 * WHERE, and a user's action carries the states it may act on: the guard is checked on the row
 * as it is when the UPDATE reaches it (READ COMMITTED re-checks it after waiting for a
 * concurrent writer). The counters follow by trigger, so `from` in a transition is not needed.
 */
import type { Job } from '../../../shared/protocol/types';
import type { AsyncPart } from '../statements';
import type { AttemptSql, JobCompleteItem } from '../statements/attempts';
import type { ExpirySql } from '../statements/expiry';
import type { JobInsert, JobSql } from '../statements/jobs';
import { COMPLETED_JOB_COLUMNS, mapCompletedJob, mapJob, newJob } from '../mappers';
import { int, intOrNull, text } from '../rows';
import type { PgTx } from './db';
import { statsBucket } from './runs';

/** The job columns every read of a whole job selects (a `j.` prefix where joined). */
export const JOB_COLUMNS = `id, queue, kind, payload, priority, weight, state, run_at, attempts, max_attempts, runs,
  backoff_strategy, backoff_base_ms, backoff_cap_ms, backoff_jitter, timeout_ms, lease_expires_at, worker_id,
  claimed_from, idempotency_key, progress, progress_message, checkpoint, result, last_error, cancel_requested,
  tags, context, output_seq, output_lines, output_dropped, created_at, updated_at, started_at, finished_at,
  depends_on, waiting_for, dependents, step, workflow_run_id, uniqueness, retry_rule, expire_at, deadline_at, paused_at, group_key, priority_set`;

/** The job columns, each prefixed with `jobs.` (for UPDATE … FROM, where `id` alone is ambiguous). */
export const JOBS_DOT_COLUMNS = JOB_COLUMNS.split(',')
  .map((c) => `jobs.${c.trim()}`)
  .join(', ');

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
       RETURNING lease_expires_at, cancel_requested, paused_at`,
      [p.id, p.workerId, p.lease, p.now],
    );
    return row === undefined ? undefined : { leaseExpiresAt: int(row, 'lease_expires_at'), cancelRequested: int(row, 'cancel_requested') !== 0, paused: row.get('paused_at') !== null };
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
       WHERE id = $1 AND state IN ('blocked', 'queued', 'retrying', 'held') RETURNING ${JOB_COLUMNS}`,
      [p.id, p.now],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  async jobRequestCancel(tx, p) {
    const row = await tx.row(`UPDATE jobs SET cancel_requested = 1, updated_at = $2 WHERE id = $1 AND state = 'running' RETURNING ${JOB_COLUMNS}`, [p.id, p.now]);
    return row === undefined ? undefined : mapJob(row);
  },

  async jobPause(tx, p) {
    const row = await tx.row(`UPDATE jobs SET paused_at = $2, updated_at = $2 WHERE id = $1 AND state = 'running' AND paused_at IS NULL RETURNING ${JOB_COLUMNS}`, [p.id, p.now]);
    return row === undefined ? undefined : mapJob(row);
  },

  async jobResume(tx, p) {
    const row = await tx.row(
      `UPDATE jobs SET lease_expires_at = lease_expires_at + greatest($2 - paused_at, 0), paused_at = NULL, updated_at = $2
       WHERE id = $1 AND state = 'running' AND paused_at IS NOT NULL RETURNING ${JOB_COLUMNS}`,
      [p.id, p.now],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  // The last attempt's worker and start time go: a queued job has neither (the history keeps them).
  async jobRetry(tx, p) {
    const row = await tx.row(
      `UPDATE jobs SET state = CASE WHEN $3::int > 0 THEN 'blocked' ELSE 'queued' END, waiting_for = $3, attempts = 0, run_at = $2, worker_id = NULL, started_at = NULL, finished_at = NULL,
         last_error = NULL, result = NULL, progress = NULL, progress_message = NULL, cancel_requested = 0,
         checkpoint = CASE WHEN state = 'completed' THEN NULL ELSE checkpoint END, updated_at = $2
       WHERE id = $1 AND state IN ('dead', 'cancelled', 'completed') RETURNING ${JOB_COLUMNS}`,
      [p.id, p.now, p.waitingFor],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  async jobUpdate(tx, p) {
    const row = await tx.row(
      `UPDATE jobs SET priority = coalesce($2, priority), run_at = coalesce($3, run_at),
         priority_set = CASE WHEN $2::int IS NULL THEN priority_set ELSE NULL END, group_key = coalesce($10, group_key),
         payload = coalesce($4, payload), max_attempts = coalesce($5, max_attempts), tags = coalesce($6, tags),
         weight = coalesce($8, weight), timeout_ms = coalesce($9, timeout_ms), updated_at = $7
       WHERE id = $1 AND state IN ('blocked', 'queued', 'retrying', 'held') RETURNING ${JOB_COLUMNS}`,
      // The group's counters follow by trigger (spool_group_jobs).
      [p.id, p.priority, p.runAt, p.payload, p.maxAttempts, p.tags, p.now, p.weight, p.timeoutMs, p.groupKey ?? null],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  async jobSetHeld(tx, p) {
    const row = await tx.row(`UPDATE jobs SET state = $3, updated_at = $4 WHERE id = $1 AND state = $2 RETURNING ${JOB_COLUMNS}`, [p.id, p.from, p.to, p.now]);
    return row === undefined ? undefined : mapJob(row);
  },

  async jobDelete(tx, id) {
    return (await tx.run(`DELETE FROM jobs WHERE id = $1 AND state <> 'running'`, [id])) > 0;
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
 * A complete's UPDATE (`update`, RETURNING the job columns) with the count of what it completed
 * in the stats bucket `bucket` (this connection's shard, as countFinished), in one round trip: a
 * data-modifying CTE runs to its end whether or not it is read, and adds nothing when the
 * UPDATE found no job whose lease it held.
 */
function completedCounted(update: string, bucket: string): string {
  return `WITH done AS (${update}), counted AS (
      INSERT INTO stat_buckets AS b (bucket, shard, completed)
      SELECT ${bucket}, pg_backend_pid() % 64, count(*) FROM done HAVING count(*) > 0
      ON CONFLICT (bucket, shard) DO UPDATE SET completed = b.completed + EXCLUDED.completed)
    SELECT * FROM done`;
}

/** What a complete sets, for one job and for many. */
const COMPLETE_SET = `state = 'completed', last_error = NULL, lease_expires_at = NULL, cancel_requested = 0`;

/**
 * The complete of many jobs: one UPDATE … FROM unnest (River's completer shape), each job guarded
 * by its own lease, and the finished count of those it completed (completedCounted); each
 * completed job read back as `columns`.
 */
function completeManySql(columns: string): string {
  return completedCounted(
    `UPDATE jobs SET ${COMPLETE_SET}, result = coalesce(item.result, jobs.result), finished_at = $4, updated_at = $4
     FROM unnest($1::text[], $2::text[], $3::text[]) AS item(id, worker_id, result)
     WHERE jobs.id = item.id AND jobs.state = 'running' AND jobs.worker_id = item.worker_id
     RETURNING ${columns}`,
    '$5',
  );
}

function completeManyValues(p: { items: readonly JobCompleteItem[]; now: number }): unknown[] {
  return [p.items.map((i) => i.id), p.items.map((i) => i.workerId), p.items.map((i) => i.result), p.now, statsBucket(p.now)];
}

/**
 * The attempt-ending statements (../statements/attempts.ts). The operations that compute an
 * ending from the job (fail, release, cancel, the reaper) lock its row first (jobGetForUpdate,
 * jobExpiredLeases, jobRunningForUpdate), so that what they computed from still holds when
 * these write.
 */
export const attemptStatements: AsyncPart<PgTx, AttemptSql & ExpirySql> = {
  /** One statement: the UPDATE … RETURNING that checks the lease (no read before), and the finished count (completedCounted). */
  async jobComplete(tx, p) {
    const row = await tx.row(
      completedCounted(
        `UPDATE jobs SET ${COMPLETE_SET}, result = coalesce($3, jobs.result), finished_at = $4, updated_at = $4
         WHERE id = $1 AND state = 'running' AND worker_id = $2
         RETURNING ${JOB_COLUMNS}`,
        '$5',
      ),
      [p.id, p.workerId, p.result, p.now, statsBucket(p.now)],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  /** One statement for many (completeManySql). */
  async jobCompleteMany(tx, p) {
    if (p.items.length === 0) return [];
    return (await tx.rows(completeManySql(JOBS_DOT_COLUMNS), completeManyValues(p))).map(mapJob);
  },

  /** jobCompleteMany, each completed job read back as a CompletedJob only. */
  async jobCompleteBatch(tx, p) {
    if (p.items.length === 0) return [];
    return (await tx.rows(completeManySql(COMPLETED_JOB_COLUMNS.map((c) => `jobs.${c}`).join(', ')), completeManyValues(p))).map(mapCompletedJob);
  },

  async jobEndAttempt(tx, _job, p) {
    const row = await tx.row(
      `UPDATE jobs SET state = $3, run_at = $4, last_error = $5, result = coalesce($6, result), lease_expires_at = NULL,
         finished_at = $7, cancel_requested = 0, updated_at = $8
       WHERE id = $1 AND state = 'running' AND worker_id = $2
       RETURNING ${JOB_COLUMNS}`,
      [p.id, p.workerId, p.state, p.runAt, p.lastError, p.result, p.finishedAt, p.now],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  async jobInterrupt(tx, p) {
    // The daemon (or worker) stopping is not the job failing: the attempt is given back.
    const row = await tx.row(
      `UPDATE jobs SET state = 'retrying', attempts = attempts - 1, run_at = $4, lease_expires_at = NULL,
         last_error = $3, cancel_requested = 0, updated_at = $2
       WHERE id = $1 AND state = 'running' RETURNING ${JOB_COLUMNS}`,
      [p.id, p.now, p.reason, p.runAt],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  /**
   * SKIP LOCKED: two daemons reaping at once (or a worker completing a job the reaper looks at)
   * never wait on each other, and a job is reaped once.
   */
  async jobExpiredLeases(tx, p) {
    const rows = await tx.rows(
      `SELECT ${JOB_COLUMNS} FROM jobs WHERE state = 'running' AND lease_expires_at <= $1 AND paused_at IS NULL
       ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [p.now, p.limit],
    );
    return rows.map(mapJob);
  },

  async jobRunningForUpdate(tx, workerIds) {
    const rows = await tx.rows(`SELECT ${JOB_COLUMNS} FROM jobs WHERE state = 'running' AND worker_id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [workerIds]);
    return rows.map(mapJob);
  },

  // Statements of ../statements/expiry.ts (ExpirySql).

  /** SKIP LOCKED: two daemons' upkeeps (or a claim holding a row) never wait for each other. */
  async jobExpiredWaiting(tx, p) {
    const rows = await tx.rows(
      `SELECT ${JOB_COLUMNS} FROM jobs WHERE expire_at IS NOT NULL AND expire_at <= $1 AND state IN ('blocked', 'queued', 'retrying')
       ORDER BY expire_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [p.now, p.limit],
    );
    return rows.map(mapJob);
  },

  async jobExpire(tx, p) {
    const row = await tx.row(
      `UPDATE jobs SET state = 'dead', finished_at = $2, last_error = $3, expire_at = NULL, updated_at = $2
       WHERE id = $1 AND state IN ('blocked', 'queued', 'retrying') AND expire_at <= $2 RETURNING ${JOB_COLUMNS}`,
      [p.id, p.now, p.reason],
    );
    return row === undefined ? undefined : mapJob(row);
  },

  async jobNextExpiry(tx, now) {
    const row = await tx.row(`SELECT min(expire_at) AS at FROM jobs WHERE expire_at IS NOT NULL AND expire_at > $1 AND state IN ('blocked', 'queued', 'retrying')`, [now]);
    return row === undefined ? null : intOrNull(row, 'at');
  },

  async jobRunningIds(tx, workerIds) {
    const rows = await tx.rows(`SELECT id FROM jobs WHERE state = 'running' AND worker_id = ANY($1::text[]) ORDER BY id`, [workerIds]);
    return rows.map((r) => text(r, 'id'));
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
       backoff_cap_ms, backoff_jitter, timeout_ms, idempotency_key, tags, context, created_at, updated_at,
       last_error, finished_at, depends_on, waiting_for, step, workflow_run_id, uniqueness, retry_rule, expire_at, deadline_at, group_key)
     SELECT id, queue, kind, payload, priority, weight, state, run_at, max_attempts, backoff_strategy, backoff_base_ms,
       backoff_cap_ms, backoff_jitter, timeout_ms, idempotency_key, tags, context, $18, $18,
       last_error, CASE WHEN state = 'cancelled' THEN $18::bigint END, depends_on, waiting_for, step, workflow_run_id,
       uniqueness, retry_rule, expire_at, deadline_at, group_key
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::bigint[], $8::int[], $9::text[],
       $10::bigint[], $11::bigint[], $12::float8[], $13::bigint[], $14::text[], $15::text[], $16::text[], $17::bigint[],
       $19::text[], $20::text[], $21::int[], $22::int[], $23::text[], $24::text[], $25::text[], $26::bigint[], $27::bigint[], $28::text[], $29::text[])
       AS t(id, queue, kind, payload, priority, weight, run_at, max_attempts, backoff_strategy, backoff_base_ms,
         backoff_cap_ms, backoff_jitter, timeout_ms, idempotency_key, tags, context, ord,
         state, last_error, depends_on, waiting_for, step, workflow_run_id, retry_rule, expire_at, deadline_at, uniqueness, group_key)
     ORDER BY ord
     ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING id`,
    [
      col('id'), col('queue'), col('kind'), col('payload'), col('priority'), col('weight'), col('runAt'), col('maxAttempts'),
      col('backoffStrategy'), col('backoffBaseMs'), col('backoffCapMs'), col('backoffJitter'), col('timeoutMs'),
      col('idempotencyKey'), col('tags'), col('context'), rows.map((_, i) => i), rows[0]?.now ?? tx.now(),
      col('state'), col('lastError'), col('dependsOn'), col('waitingFor'), col('step'), col('workflowRunId'),
      col('retryRule'), col('expireAt'), col('deadlineAt'), rows.map((r) => r.uniqueness ?? null), col('groupKey'),
    ],
  );
  const ids = new Set(inserted.map((r) => r.get('id')));
  return rows.map((r) => (ids.has(r.id) ? newJob(r) : undefined));
}
