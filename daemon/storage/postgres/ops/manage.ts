/**
 * A user's actions on jobs: cancel, retry, update, delete, and the id lists of their bulk forms.
 * Each reads the job with its row lock, lets the job rules decide, then writes with the state it
 * read as a guard: a worker's complete racing a cancel on another daemon waits for the lock and
 * then finds the job as this transaction left it.
 */
import { SpoolError } from '../../../../shared/errors';
import type { BulkResult } from '../../../../shared/protocol';
import type { Job } from '../../../../shared/types';
import type { BulkInput, UpdateInput } from '../../../engine/validate/jobs';
import { mapJob } from '../../mappers';
import type { PgTx } from '../db';
import { JOB_COLUMNS, getJobRow } from './common';
import { listJobs } from './jobs';
import { keepCompleted } from './runs';

async function changed(tx: PgTx, id: string, what: string, sql: string, values: unknown[]): Promise<Job> {
  const row = await tx.row(sql, values);
  if (!row) throw new Error(`Job ${id} changed while being ${what}`);
  const job = mapJob(row);
  tx.job(job);
  return job;
}

/** queued/retrying → cancelled; running → cancel requested (the worker stops it); finished → error. */
export async function cancel(tx: PgTx, id: string): Promise<Job> {
  const job = await getJobRow(tx, id, true);
  const now = tx.now();
  if (tx.policy.rules.cancel(job) === 'cancel') {
    return changed(tx, id, 'cancelled', `UPDATE jobs SET state = 'cancelled', finished_at = $2, updated_at = $2
      WHERE id = $1 AND state IN ('queued', 'retrying') RETURNING ${JOB_COLUMNS}`, [id, now]);
  }
  return changed(tx, id, 'cancelled', `UPDATE jobs SET cancel_requested = 1, updated_at = $2 WHERE id = $1 AND state = 'running' RETURNING ${JOB_COLUMNS}`, [id, now]);
}

/**
 * dead/cancelled/completed → queued with a fresh attempt budget; the run history stays, and so
 * does the checkpoint, except that a completed job starts over from nothing.
 */
export async function retry(tx: PgTx, id: string): Promise<Job> {
  const job = await getJobRow(tx, id, true);
  tx.policy.rules.checkRetry(job);
  // The job row is about to stop describing its completed attempt: the history gets its row.
  if (job.state === 'completed') await keepCompleted(tx, id);
  return changed(tx, id, 'retried', `UPDATE jobs SET state = 'queued', attempts = 0, run_at = $2, worker_id = NULL, started_at = NULL, finished_at = NULL,
      last_error = NULL, result = NULL, progress = NULL, progress_message = NULL, cancel_requested = 0,
      checkpoint = CASE WHEN state = 'completed' THEN NULL ELSE checkpoint END, updated_at = $2
    WHERE id = $1 AND state IN ('dead', 'cancelled', 'completed') RETURNING ${JOB_COLUMNS}`, [id, tx.now()]);
}

export async function update(tx: PgTx, input: UpdateInput): Promise<Job> {
  const job = await getJobRow(tx, input.id, true);
  tx.policy.rules.checkUpdate(job, input);
  const now = tx.now();
  const runAt = input.runAt ?? (input.delayMs !== undefined ? now + input.delayMs : null);
  return changed(tx, input.id, 'updated', `UPDATE jobs SET priority = coalesce($2, priority), run_at = coalesce($3, run_at),
      payload = coalesce($4, payload), max_attempts = coalesce($5, max_attempts), tags = coalesce($6, tags), updated_at = $7
    WHERE id = $1 AND state IN ('queued', 'retrying') RETURNING ${JOB_COLUMNS}`,
    [input.id, input.priority ?? null, runAt, input.payload ?? null, input.maxAttempts ?? null, input.tags ?? null, now]);
}

export async function deleteJob(tx: PgTx, id: string): Promise<void> {
  const job = await getJobRow(tx, id, true);
  tx.policy.rules.checkDelete(job);
  if ((await tx.run(`DELETE FROM jobs WHERE id = $1 AND state <> 'running'`, [id])) === 0) throw new Error(`Job ${id} changed while being deleted`);
  tx.job(job, true);
}

/** The ids a bulk action applies to: the given ids, or every match of the filter, oldest first. */
export async function bulkIds(tx: PgTx, input: BulkInput): Promise<string[]> {
  if ('ids' in input) return input.ids;
  const ids: string[] = [];
  let after: { id: string; runAt: number } | undefined;
  for (;;) {
    const page = await listJobs(tx, { ...input.filter, order: 'oldest', limit: tx.policy.batchSize, after });
    for (const job of page) ids.push(job.id);
    const last = page[page.length - 1];
    if (page.length < tx.policy.batchSize || !last) return ids;
    after = { id: last.id, runAt: last.runAt };
  }
}

/**
 * Applies `action` to each id inside the caller's transaction, each in a savepoint: a refused
 * one (SpoolError) undoes only itself and is collected, not thrown.
 */
export async function applyEach(tx: PgTx, ids: readonly string[], action: (id: string) => Promise<unknown>, result: BulkResult): Promise<void> {
  for (const id of ids) {
    try {
      await tx.savepoint(() => action(id));
      result.count += 1;
    } catch (error) {
      if (!(error instanceof SpoolError)) throw error;
      result.errors.push({ id, code: error.code, message: error.message });
    }
  }
}
