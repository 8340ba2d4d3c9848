/**
 * Stats from the sharded counters, retention, the next wake-up time, and the counters' check.
 *
 * queue_counts holds, per queue and state, one row per shard (the backend that wrote it), kept
 * by statement-level triggers inside each transaction that moves jobs: the sum of a queue's
 * shards is exact in any snapshot. A shard may hold a negative count (jobs inserted by one
 * backend and deleted by another); only the sum means anything.
 */
import type { QueueStats, Stats } from '../../../../shared/protocol';
import { JOB_STATES, type JobCounts, type JobState } from '../../../../shared/types';
import type { CounterMismatch } from '../../backend';
import { emptyCounts, jobState, mapSettings, type QueueSettings } from '../../mappers';
import { int, intOrNull, text } from '../../rows';
import type { PgTx, Transactions } from '../db';
import { BUCKET_MS, finishedSince } from './runs';

const MINUTE = 60_000;
const HOUR = 3_600_000;
/** Fire records older than this go: the swap on next_run_at has long moved past them. */
const FIRES_KEPT_MS = 24 * HOUR;

/** Every queue's counts (summed shards), by queue name. */
export async function allCounts(tx: PgTx, queue?: string): Promise<Map<string, JobCounts>> {
  const rows = await tx.rows(
    `SELECT queue, state, sum(count) AS count FROM queue_counts ${queue === undefined ? '' : 'WHERE queue = $1'} GROUP BY queue, state`,
    queue === undefined ? [] : [queue],
  );
  const byQueue = new Map<string, JobCounts>();
  for (const row of rows) {
    const name = text(row, 'queue');
    let counts = byQueue.get(name);
    if (!counts) byQueue.set(name, (counts = emptyCounts()));
    counts[jobState(row)] = int(row, 'count');
  }
  return byQueue;
}

/**
 * Queued jobs per queue whose run time is still to come. Over the jobs_due index (its predicate
 * repeated, so the planner uses it): only jobs made to run later are in it.
 */
export async function delayedCounts(tx: PgTx, now: number, queue?: string): Promise<Map<string, number>> {
  const rows = await tx.rows(
    `SELECT queue, count(*) AS count FROM jobs
     WHERE state IN ('queued', 'retrying') AND run_at > created_at AND state = 'queued' AND run_at > $1 ${queue === undefined ? '' : 'AND queue = $2'}
     GROUP BY queue`,
    queue === undefined ? [now] : [now, queue],
  );
  return new Map(rows.map((row) => [text(row, 'queue'), int(row, 'count')]));
}

/** Every queue's settings with its owner, by name. */
export async function allSettings(tx: PgTx): Promise<QueueSettings[]> {
  const rows = await tx.rows(`SELECT q.*, m.project AS owner FROM queues q
    LEFT JOIN managed_objects m ON m.type = 'queue' AND m.name = q.name ORDER BY q.name`);
  return rows.map(mapSettings);
}

/** O(queues + delayed jobs): the summed counters, each queue's delayed count, and the stat buckets. */
export async function stats(tx: PgTx): Promise<Stats> {
  const now = tx.now();
  const counts = await allCounts(tx);
  const delayed = await delayedCounts(tx, now);
  const totals = emptyCounts();
  const queues: QueueStats[] = (await allSettings(tx)).map((q) => {
    const c = counts.get(q.name) ?? emptyCounts();
    for (const state of JOB_STATES) totals[state] += c[state];
    return { name: q.name, paused: q.paused, counts: c, delayed: delayed.get(q.name) ?? 0 };
  });
  const minute = await finishedSince(tx, now, MINUTE);
  const hour = await finishedSince(tx, now, HOUR);
  return {
    queues,
    totals,
    completedLastMinute: minute.completed,
    failedLastMinute: minute.failed,
    completedLastHour: hour.completed,
    failedLastHour: hour.failed,
    at: now,
  };
}

const FINISHED: readonly JobState[] = ['completed', 'dead', 'cancelled'];

/**
 * Deletes up to `limit` finished jobs of one queue and state that finished before `cutoff`, oldest first,
 * in one transaction. The jobs_list index gives them in id (creation) order, and `id < beforeId`
 * bounds the walk: a job that finished before the cutoff was created before it too, so a batch
 * that finds few expired jobs does not read every job still inside the retention window. Rows
 * another transaction holds are skipped (a retry or delete of that job is under way). The batch
 * is a materialized CTE: as a plain `IN (subquery)` the planner may run the LIMIT more than once
 * (each run skipping other locked rows) and delete more than `limit`.
 */
async function retentionBatch(tx: PgTx, queue: string, state: JobState, cutoff: number, beforeId: string, limit: number): Promise<number> {
  const deleted = await tx.run(
    `WITH batch AS MATERIALIZED (
       SELECT id FROM jobs WHERE queue = $1 AND state = $2 AND state <> 'running' AND id < $3 AND finished_at < $4
       ORDER BY id LIMIT $5 FOR UPDATE SKIP LOCKED)
     DELETE FROM jobs j USING batch WHERE j.id = batch.id`,
    [queue, state, beforeId, cutoff, limit],
  );
  if (deleted > 0) tx.queue(queue);
  return deleted;
}

/**
 * Retention: up to `limit` finished jobs past their queue's retention, in transactions of at
 * most batchSize jobs (store.write each: no transaction holds many row locks or builds much
 * WAL); then stat buckets older than two hours and fire records older than a day, bounded too.
 */
export async function cleanup(store: Transactions, limit: number): Promise<number> {
  const settings = await store.readTx((tx) => allSettings(tx));
  let left = limit;
  let deleted = 0;
  for (const q of settings) {
    const retentionMs = q.retentionMs;
    if (retentionMs === null) continue;
    // One transaction per batch: each state's oldest jobs in turn, until the batch is full.
    for (;;) {
      if (left <= 0) break;
      const size = Math.min(store.policy.batchSize, left);
      const n = await store.writeTx(async (tx) => {
        const cutoff = tx.now() - retentionMs;
        const beforeId = tx.policy.firstIdAt(cutoff);
        let batch = 0;
        for (const state of FINISHED) {
          if (batch < size) batch += await retentionBatch(tx, q.name, state, cutoff, beforeId, size - batch);
        }
        return batch;
      });
      deleted += n;
      left -= n;
      if (n < size) break;
    }
  }
  await store.writeTx(async (tx) => {
    const now = tx.now();
    await tx.run('DELETE FROM stat_buckets WHERE bucket < $1', [Math.floor((now - 2 * HOUR) / BUCKET_MS)]);
    await tx.run(
      'DELETE FROM schedule_fires WHERE (schedule, fire_at) IN (SELECT schedule, fire_at FROM schedule_fires WHERE fire_at < $1 LIMIT $2)',
      [now - FIRES_KEPT_MS, tx.policy.batchSize],
    );
  });
  return deleted;
}

/** Recounts the jobs (one snapshot: the caller's read transaction) and compares with the summed shards. */
export async function verifyCounters(tx: PgTx): Promise<{ ok: boolean; mismatches: CounterMismatch[] }> {
  const actual = new Map<string, number>();
  for (const row of await tx.rows('SELECT queue, state, count(*) AS count FROM jobs GROUP BY queue, state')) {
    actual.set(`${text(row, 'queue')}\u0000${jobState(row)}`, int(row, 'count'));
  }
  const mismatches: CounterMismatch[] = [];
  const seen = new Set<string>();
  for (const [queue, counts] of await allCounts(tx)) {
    for (const state of JOB_STATES) {
      const key = `${queue}\u0000${state}`;
      seen.add(key);
      const a = actual.get(key) ?? 0;
      if (counts[state] !== a) mismatches.push({ queue, state, counted: counts[state], actual: a });
    }
  }
  for (const [key, count] of actual) {
    if (seen.has(key)) continue;
    const [queue = '', state = 'queued'] = key.split('\u0000');
    const known = JOB_STATES.find((s) => s === state);
    if (known) mismatches.push({ queue, state: known, counted: 0, actual: count });
  }
  return { ok: mismatches.length === 0, mismatches };
}

/**
 * The earliest future moment something becomes due: a delayed or retrying job of a queue that
 * is not paused (jobs_due, per queue), a lease expiry (jobs_lease), a schedule, or a
 * rate-limited queue's next token while it has due jobs waiting for one.
 */
export async function nextWakeAt(tx: PgTx): Promise<number | null> {
  const now = tx.now();
  const row = await tx.row(
    `SELECT least(
       (SELECT min(d.next) FROM queues q CROSS JOIN LATERAL (
          SELECT min(run_at) AS next FROM jobs
          WHERE queue = q.name AND state IN ('queued', 'retrying') AND run_at > created_at AND run_at > $1) d
        WHERE q.paused = 0),
       (SELECT min(lease_expires_at) FROM jobs WHERE state = 'running'),
       (SELECT min(next_run_at) FROM schedules WHERE enabled = 1)) AS next`,
    [now],
  );
  let next = row === undefined ? null : intOrNull(row, 'next');
  const limited = await tx.rows(
    `SELECT q.name, q.rate_per_second, q.rate_burst, q.rate_tokens, q.rate_refilled_at FROM queues q
     WHERE q.paused = 0 AND q.rate_per_second IS NOT NULL
       AND EXISTS (SELECT 1 FROM jobs WHERE queue = q.name AND state IN ('queued', 'retrying'))`,
  );
  for (const q of limited) {
    const limit = { perSecond: Number(q.get('rate_per_second')), burst: intOrNull(q, 'rate_burst') ?? 1 };
    const tokens = q.get('rate_tokens');
    const bucket = tx.policy.refill(limit, { tokens: typeof tokens === 'number' ? tokens : null, refilledAt: intOrNull(q, 'rate_refilled_at') }, now);
    if (bucket.tokens < 1) {
      const at = tx.policy.nextTokenAt(limit, bucket);
      if (next === null || at < next) next = at;
    }
  }
  return next;
}
