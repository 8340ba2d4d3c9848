/**
 * Statements over queues and their counters (../statements/queues.ts), in PostgreSQL.
 *
 * queue_counts holds, per queue and state, one row per shard (the backend that wrote it), kept
 * by statement-level triggers inside each transaction that moves jobs: the sum of a queue's
 * shards is exact in any snapshot, this transaction's own moves included.
 */
import type { AsyncPart } from '../statements';
import type { QueueSql } from '../statements/queues';
import type { JobCounts } from '../../../shared/protocol/types';
import { jobState, mapSettings } from '../mappers';
import { countUnfinishedOfRun, emptyCounts, type StoredQueue } from '../statements/queues';
import { int, text, textOrNull } from '../rows';
import type { PgTx } from './db';

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
export async function allSettings(tx: PgTx): Promise<StoredQueue[]> {
  const rows = await tx.rows(`SELECT q.*, m.project AS owner FROM queues q
    LEFT JOIN managed_objects m ON m.type = 'queue' AND m.name = q.name ORDER BY q.name`);
  return rows.map(mapSettings);
}

/** A queue's settings with the project that owns it, if any. */
const SETTINGS = `SELECT q.*, m.project AS owner FROM queues q
  LEFT JOIN managed_objects m ON m.type = 'queue' AND m.name = q.name WHERE q.name = $1`;

export const queueStatements: AsyncPart<PgTx, QueueSql> = {
  async queueGet(tx, name) {
    const row = await tx.row(SETTINGS, [name]);
    return row === undefined ? undefined : mapSettings(row);
  },

  async queueGetForUpdate(tx, name) {
    const row = await tx.row(`${SETTINGS} FOR UPDATE OF q`, [name]);
    return row === undefined ? undefined : mapSettings(row);
  },

  // A claim drawing on the rate bucket, or another configure, waits; an enqueue into the queue
  // (its foreign key check takes FOR KEY SHARE) does not.
  async queueGetForConfigure(tx, name) {
    const row = await tx.row(`${SETTINGS} FOR NO KEY UPDATE OF q`, [name]);
    return row === undefined ? undefined : mapSettings(row);
  },

  async queueCreate(tx, p) {
    const d = p.defaults;
    const inserted = await tx.run(
      `INSERT INTO queues (name, concurrency, paused, default_max_attempts, backoff_strategy, backoff_base_ms, backoff_cap_ms,
         backoff_jitter, default_timeout_ms, retention_ms, created_at, updated_at)
       VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8, $9, $10, $10) ON CONFLICT (name) DO NOTHING`,
      [p.name, d.concurrency, d.maxAttempts, d.backoff.strategy, d.backoff.baseMs, d.backoff.capMs, d.backoff.jitter, d.timeoutMs, d.retentionMs, p.now],
    );
    return inserted > 0;
  },

  queueList(tx) {
    return allSettings(tx);
  },

  // A changed rate limit starts a full bucket again (tokens NULL = full).
  async queueSetRetryPolicy(tx, p) {
    await tx.run('UPDATE queues SET retry_rule = $2, default_expire_after_ms = $3, updated_at = $4 WHERE name = $1', [p.name, p.retryRule, p.defaultExpireAfterMs, p.now]);
  },

  async queueSetAgeing(tx, p) {
    await tx.run('UPDATE queues SET ageing_step = $2, ageing_every_ms = $3, updated_at = $4 WHERE name = $1', [p.name, p.step, p.everyMs, p.now]);
  },

  /**
   * As SQLite's (see it), on jobs_due. Integer division of bigints truncates as SQLite's does;
   * greatest/least for SQLite's max/min. A job a claim in flight has locked is waited for until
   * that claim commits, and then left alone: it is running.
   */
  async queueAgeJobs(tx, p) {
    const aged = `least($4::int, coalesce(priority_set, priority) + $2::int * greatest(0, ($5::bigint - run_at) / $3::bigint))`;
    return await tx.run(
      `UPDATE jobs SET priority_set = CASE WHEN ${aged} = coalesce(priority_set, priority) THEN NULL ELSE coalesce(priority_set, priority) END,
         priority = ${aged}
       WHERE queue = $1 AND state IN ('queued', 'retrying') AND (run_at <= $5::bigint - $3::bigint OR priority_set IS NOT NULL) AND priority <> ${aged}`,
      [p.name, p.step, p.everyMs, p.maxPriority, p.now],
    );
  },

  async queueClearAgeing(tx, name) {
    return await tx.run('UPDATE jobs SET priority = priority_set, priority_set = NULL WHERE queue = $1 AND priority_set IS NOT NULL', [name]);
  },

  async queueUpdate(tx, p) {
    await tx.run(
      `UPDATE queues SET concurrency = $2,
         rate_tokens = CASE WHEN rate_per_second IS NOT DISTINCT FROM $3::float8 AND rate_burst IS NOT DISTINCT FROM $4::int THEN rate_tokens ELSE NULL END,
         rate_per_second = $3, rate_burst = $4, default_max_attempts = $5, backoff_strategy = $6, backoff_base_ms = $7,
         backoff_cap_ms = $8, backoff_jitter = $9, default_timeout_ms = $10, retention_ms = $11, limit_memory_bytes = $12,
         limit_cpu_seconds = $13, limit_open_files = $14, limit_processes = $15, updated_at = $16,
         group_concurrency = $17, group_rate_per_second = $18, group_rate_burst = $19, group_weights = $20
       WHERE name = $1`,
      [
        p.name,
        p.concurrency,
        p.ratePerSecond,
        p.rateBurst,
        p.defaultMaxAttempts,
        p.backoffStrategy,
        p.backoffBaseMs,
        p.backoffCapMs,
        p.backoffJitter,
        p.defaultTimeoutMs,
        p.retentionMs,
        p.limitMemoryBytes,
        p.limitCpuSeconds,
        p.limitOpenFiles,
        p.limitProcesses,
        p.now,
        p.groupConcurrency,
        p.groupRatePerSecond,
        p.groupRateBurst,
        p.groupWeights,
      ],
    );
  },

  async queueSetPaused(tx, p) {
    return (await tx.run('UPDATE queues SET paused = $2, updated_at = $3 WHERE name = $1', [p.name, p.paused ? 1 : 0, p.now])) > 0;
  },

  async queueCounts(tx, name) {
    return (await allCounts(tx, name)).get(name) ?? emptyCounts();
  },

  queueCountsAll(tx) {
    return allCounts(tx);
  },

  async queueDelayed(tx, p) {
    return (await delayedCounts(tx, p.now, p.name)).get(p.name) ?? 0;
  },

  queueDelayedAll(tx, now) {
    return delayedCounts(tx, now);
  },

  async queueHeavierWaiting(tx, p) {
    const row = await tx.row(
      `SELECT count(*) AS count, coalesce(max(weight), 0) AS heaviest FROM jobs WHERE queue = $1 AND state IN ('queued', 'retrying') AND weight > $2`,
      [p.name, p.weight],
    );
    return row === undefined ? { count: 0, heaviest: 0 } : { count: int(row, 'count'), heaviest: int(row, 'heaviest') };
  },

  // Counted from the jobs, not the counters: another daemon may have claimed one of the queue's
  // jobs since the counters were read, and the queue row's lock does not stop a claim.
  async queueJobsLeft(tx, name) {
    const row = await tx.row(`SELECT count(*) FILTER (WHERE state = 'running') AS running, count(*) AS total FROM jobs WHERE queue = $1`, [name]);
    return row === undefined ? { running: 0, total: 0 } : { running: int(row, 'running'), total: int(row, 'total') };
  },

  // A materialized CTE: as `id IN (subquery)` the planner may run the LIMIT more than once.
  async queuePurge(tx, p) {
    const rows = await tx.rows(
      `WITH batch AS MATERIALIZED (SELECT id FROM jobs WHERE queue = $1 AND state = ANY($2::text[]) AND state <> 'running' LIMIT $3)
       DELETE FROM jobs WHERE id IN (SELECT id FROM batch) RETURNING state, workflow_run_id`,
      [p.name, p.states, p.limit],
    );
    const unfinishedByRun = new Map<string, number>();
    for (const row of rows) countUnfinishedOfRun(unfinishedByRun, jobState(row), textOrNull(row, 'workflow_run_id'));
    return { deleted: rows.length, unfinishedByRun };
  },

  async queueDelete(tx, name) {
    await tx.run('DELETE FROM queues WHERE name = $1', [name]);
    await tx.run('DELETE FROM queue_counts WHERE queue = $1', [name]);
  },

  async queueSetRateState(tx, p) {
    await tx.run('UPDATE queues SET rate_tokens = $2, rate_refilled_at = $3 WHERE name = $1', [p.name, p.tokens, p.refilledAt]);
  },
};
