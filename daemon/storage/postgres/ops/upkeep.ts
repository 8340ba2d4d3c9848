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
import type { JobCounts } from '../../../../shared/types';
import { emptyCounts, jobState, mapSettings, type QueueSettings } from '../../mappers';
import { int, text } from '../../rows';
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
