/**
 * Queues: listing with counts (the summed counter shards and the delayed count), settings,
 * pause, purge, delete.
 */
import { SpoolError } from '../../../../shared/errors';
import { ErrorCode } from '../../../../shared/protocol';
import { TERMINAL_STATES, type JobState, type Queue } from '../../../../shared/types';
import type { ConfigureInput } from '../../../engine/validate/queues';
import { queueNotFound } from '../../../engine/errors';
import { emptyCounts, mapSettings, type QueueSettings } from '../../mappers';
import type { PgTx, Transactions } from '../db';
import { ensureQueue } from './common';
import { allCounts, allSettings, delayedCounts } from './upkeep';
import { changedLimits } from '../../queueLimits';

async function describe(tx: PgTx, settings: QueueSettings): Promise<Queue> {
  const now = tx.now();
  const counts = (await allCounts(tx, settings.name)).get(settings.name) ?? emptyCounts();
  const delayed = (await delayedCounts(tx, now, settings.name)).get(settings.name) ?? 0;
  return { ...settings, counts, delayed };
}

async function settingsOf(tx: PgTx, name: string): Promise<QueueSettings | undefined> {
  const row = await tx.row(`SELECT q.*, m.project AS owner FROM queues q
    LEFT JOIN managed_objects m ON m.type = 'queue' AND m.name = q.name WHERE q.name = $1`, [name]);
  return row === undefined ? undefined : mapSettings(row);
}

export async function listQueues(tx: PgTx): Promise<Queue[]> {
  const now = tx.now();
  const counts = await allCounts(tx);
  const delayed = await delayedCounts(tx, now);
  return (await allSettings(tx)).map((settings) => ({ ...settings, counts: counts.get(settings.name) ?? emptyCounts(), delayed: delayed.get(settings.name) ?? 0 }));
}

export async function getQueue(tx: PgTx, name: string): Promise<Queue> {
  const settings = await settingsOf(tx, name);
  if (!settings) throw queueNotFound(name);
  return describe(tx, settings);
}

export async function configureQueue(tx: PgTx, input: ConfigureInput): Promise<Queue> {
  await writeQueueSettings(tx, input);
  tx.queue(input.name);
  return getQueue(tx, input.name);
}

/**
 * Pauses or resumes a queue. A pause creates the queue with the defaults if it does not exist
 * yet (a queue paused before its first job must hold that job); a resume of an unknown queue is
 * refused: it would create a queue to change nothing.
 */
export async function setPaused(tx: PgTx, name: string, paused: boolean): Promise<Queue> {
  if (paused) await ensureQueue(tx, name);
  if ((await tx.run('UPDATE queues SET paused = $2, updated_at = $3 WHERE name = $1', [name, paused ? 1 : 0, tx.now()])) === 0) throw queueNotFound(name);
  tx.queue(name);
  return getQueue(tx, name);
}

/** One batch of a purge: up to batchSize of the queue's jobs in these states (never running ones). */
async function purgeBatch(tx: PgTx, name: string, states: JobState[]): Promise<number> {
  // A materialized CTE: as `id IN (subquery)` the planner may run the LIMIT more than once.
  const deleted = await tx.run(
    `WITH batch AS MATERIALIZED (SELECT id FROM jobs WHERE queue = $1 AND state = ANY($2::text[]) AND state <> 'running' LIMIT $3)
     DELETE FROM jobs WHERE id IN (SELECT id FROM batch)`,
    [name, states, tx.policy.batchSize],
  );
  if (deleted > 0) tx.queue(name);
  return deleted;
}

async function purgeAll(store: Transactions, name: string, states: JobState[]): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await store.writeTx((tx) => purgeBatch(tx, name, states));
    total += deleted;
    if (deleted < store.policy.batchSize) return total;
  }
}

/** In batches, one transaction each, so a huge purge never holds its locks for long. */
export async function purgeQueue(store: Transactions, name: string, states: JobState[]): Promise<number> {
  await store.readTx((tx) => getQueue(tx, name));
  return purgeAll(store, name, states);
}

/**
 * With `force`, the waiting and finished jobs go in batches first; then, in one transaction with
 * the queue row locked, the check and the delete (jobs that arrived meanwhile go too, with force).
 */
export async function deleteQueue(store: Transactions, name: string, force: boolean): Promise<number> {
  const waitingAndFinished: JobState[] = [...TERMINAL_STATES, 'queued', 'retrying'];
  await store.readTx(async (tx) => {
    const queue = await getQueue(tx, name);
    const total = Object.values(queue.counts).reduce((a, b) => a + b, 0);
    jobsLeft(name, queue.counts.running, total, force);
  });
  const purged = force ? await purgeAll(store, name, waitingAndFinished) : 0;
  return store.writeTx(async (tx) => {
    const before = await tx.row('SELECT count(*) AS n FROM jobs WHERE queue = $1', [name]);
    await deleteQueueNow(tx, name, force);
    return purged + Number(before?.get('n') ?? 0);
  });
}

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
