/**
 * What several PostgreSQL operations share: the job columns, reading a job, and a queue's
 * settings (creating the queue with the defaults on first use).
 */
import { jobNotFound } from '../../../../shared/protocol/errors';
import type { Job } from '../../../../shared/protocol/types';
import { mapJob, mapSettings, type QueueSettings } from '../../mappers';
import type { PgTx } from '../db';

/** The job columns every read of a whole job selects (a `j.` prefix where joined). */
export const JOB_COLUMNS = `id, queue, kind, payload, priority, weight, state, run_at, attempts, max_attempts, runs,
  backoff_strategy, backoff_base_ms, backoff_cap_ms, backoff_jitter, timeout_ms, lease_expires_at, worker_id,
  claimed_from, idempotency_key, progress, progress_message, checkpoint, result, last_error, cancel_requested,
  tags, context, output_seq, output_lines, output_dropped, created_at, updated_at, started_at, finished_at`;

/** The job columns, each prefixed with `jobs.` (for UPDATE … FROM, where `id` alone is ambiguous). */
export const JOBS_DOT_COLUMNS = JOB_COLUMNS.split(',')
  .map((c) => `jobs.${c.trim()}`)
  .join(', ');

/** One job, or undefined; `lock` takes its row lock for the rest of the transaction. */
export async function findJob(tx: PgTx, id: string, lock = false): Promise<Job | undefined> {
  const row = await tx.row(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return row === undefined ? undefined : mapJob(row);
}

/** One job; rejects with JobNotFound. */
export async function getJobRow(tx: PgTx, id: string, lock = false): Promise<Job> {
  const job = await findJob(tx, id, lock);
  if (job === undefined) throw jobNotFound(id);
  return job;
}

export async function queueSettings(tx: PgTx, name: string, lock = false): Promise<QueueSettings | undefined> {
  const row = await tx.row(`SELECT * FROM queues WHERE name = $1${lock ? ' FOR UPDATE' : ''}`, [name]);
  return row === undefined ? undefined : mapSettings(row);
}

/** A queue's settings; a queue not seen before is created with the defaults (its first job creates it). */
export async function ensureQueue(tx: PgTx, name: string): Promise<QueueSettings> {
  const existing = await queueSettings(tx, name);
  if (existing) return existing;
  const d = tx.policy.queueDefaults;
  const now = tx.now();
  const inserted = await tx.run(
    `INSERT INTO queues (name, concurrency, paused, default_max_attempts, backoff_strategy, backoff_base_ms, backoff_cap_ms,
       backoff_jitter, default_timeout_ms, retention_ms, created_at, updated_at)
     VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8, $9, $10, $10) ON CONFLICT (name) DO NOTHING`,
    [name, d.concurrency, d.maxAttempts, d.backoff.strategy, d.backoff.baseMs, d.backoff.capMs, d.backoff.jitter, d.timeoutMs, d.retentionMs, now],
  );
  // Another daemon may have created it a moment ago: then it is theirs to announce.
  if (inserted > 0) tx.queue(name);
  const created = await queueSettings(tx, name);
  if (!created) throw new Error(`Queue "${name}" was inserted but cannot be read back`);
  return created;
}
