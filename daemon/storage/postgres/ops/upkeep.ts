/**
 * Queue figures several operations read: the summed counter shards, the delayed counts and the
 * settings with their owner (stats, retention and the counters' check are
 * daemon/engine/ops/upkeep.ts, over ../upkeep.ts).
 *
 * queue_counts holds, per queue and state, one row per shard (the backend that wrote it), kept
 * by statement-level triggers inside each transaction that moves jobs: the sum of a queue's
 * shards is exact in any snapshot. A shard may hold a negative count (jobs inserted by one
 * backend and deleted by another); only the sum means anything.
 */
import type { JobCounts } from '../../../../shared/protocol/types';
import { emptyCounts, jobState, mapSettings, type QueueSettings } from '../../mappers';
import { int, intOrNull, text } from '../../rows';
import type { PgTx } from '../db';

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

