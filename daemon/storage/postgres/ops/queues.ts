/**
 * The queue writes of an apply (configure, delete), made inside its one transaction (the
 * engine's own queue operations are in daemon/engine/ops/queues.ts).
 */
import { SpoolError } from '../../../../shared/protocol/errors';
import { ErrorCode } from '../../../../shared/protocol';
import type { ConfigureInput } from '../../../engine/validate/queues';
import { queueNotFound } from '../../../engine/errors';
import { emptyCounts, mapSettings } from '../../mappers';
import type { PgTx } from '../db';
import { ensureQueue } from './common';
import { allCounts } from './upkeep';
import { changedLimits } from '../../queueLimits';

/** Changes a queue's settings, creating it if new; records no event (the caller does). */
export async function writeQueueSettings(tx: PgTx, input: ConfigureInput): Promise<void> {
  await ensureQueue(tx, input.name);
  // Locked and read again: a claim drawing on the rate bucket, or another configure, waits; an
  // enqueue into the queue (its foreign key check takes FOR KEY SHARE) does not.
  const row = await tx.row('SELECT * FROM queues WHERE name = $1 FOR NO KEY UPDATE', [input.name]);
  if (!row) throw queueNotFound(input.name);
  const current = mapSettings(row);
  const backoff = tx.policy.mergeBackoff(current.defaultBackoff, input.defaultBackoff ?? {}, 'defaultBackoff');
  const rate = input.rateLimit === undefined ? current.rateLimit : input.rateLimit;
  const limits = changedLimits(current.limits, input.limits);
  await tx.run(
    `UPDATE queues SET concurrency = $2,
       rate_tokens = CASE WHEN rate_per_second IS NOT DISTINCT FROM $3::float8 AND rate_burst IS NOT DISTINCT FROM $4::int THEN rate_tokens ELSE NULL END,
       rate_per_second = $3, rate_burst = $4, default_max_attempts = $5, backoff_strategy = $6, backoff_base_ms = $7,
       backoff_cap_ms = $8, backoff_jitter = $9, default_timeout_ms = $10, retention_ms = $11, limit_memory_bytes = $12,
       limit_cpu_seconds = $13, limit_open_files = $14, limit_processes = $15, updated_at = $16
     WHERE name = $1`,
    [
      input.name,
      input.concurrency === undefined ? current.concurrency : input.concurrency,
      rate?.perSecond ?? null,
      rate?.burst ?? null,
      input.defaultMaxAttempts ?? current.defaultMaxAttempts,
      backoff.strategy,
      backoff.baseMs,
      backoff.capMs,
      backoff.jitter,
      input.defaultTimeoutMs ?? current.defaultTimeoutMs,
      input.retentionMs === undefined ? current.retentionMs : input.retentionMs,
      limits.memoryBytes ?? null,
      limits.cpuSeconds ?? null,
      limits.openFiles ?? null,
      limits.processes ?? null,
      tx.now(),
    ],
  );
}

function jobsLeft(name: string, running: number, total: number, force: boolean): void {
  if (running > 0) {
    throw new SpoolError(ErrorCode.InvalidState, `Cannot delete queue "${name}": ${running} job(s) are running. Pause it, wait for them or cancel them, then delete.`, { queue: name });
  }
  if (total > 0 && !force) {
    throw new SpoolError(ErrorCode.InvalidState, `Queue "${name}" still has ${total} job(s). Purge it first, or delete it with force (spool queue ${name} delete --force; queues.delete with force: true) to remove them too.`, { queue: name });
  }
}

/**
 * Deletes a queue: refused while jobs run, and without `force` while any job is left; with
 * `force` its waiting and finished jobs go first, all in this transaction (an apply is all or
 * nothing, and a queue a jobs file deletes is rarely large). The queue row is locked first, so
 * no job can be added to it meanwhile; a job another daemon claims between the check and the
 * delete is found by the check after it, and refuses the delete as a running job would.
 */
export async function deleteQueueNow(tx: PgTx, name: string, force: boolean): Promise<void> {
  if (!(await tx.row('SELECT name FROM queues WHERE name = $1 FOR UPDATE', [name]))) throw queueNotFound(name);
  const counts = (await allCounts(tx, name)).get(name) ?? emptyCounts();
  jobsLeft(name, counts.running, Object.values(counts).reduce((a, b) => a + b, 0), force);
  if (force) await tx.run(`DELETE FROM jobs WHERE queue = $1 AND state <> 'running'`, [name]);
  const left = await tx.row(`SELECT count(*) FILTER (WHERE state = 'running') AS running, count(*) AS total FROM jobs WHERE queue = $1`, [name]);
  jobsLeft(name, Number(left?.get('running') ?? 0), Number(left?.get('total') ?? 0), false);
  await tx.run('DELETE FROM queues WHERE name = $1', [name]);
  await tx.run('DELETE FROM queue_counts WHERE queue = $1', [name]);
  tx.queue(name, true);
}
