/**
 * Statements over queues (../statements/queues.ts), in PostgreSQL: their settings, and their
 * counts from queue_counts, which holds per queue and state one row per shard (the backend that
 * wrote it): only the sum of a queue's shards means anything, and it is exact in any snapshot.
 */
import type { AsyncPart } from '../statements';
import type { QueueSql } from '../statements/queues';
import { emptyCounts, mapSettings } from '../mappers';
import type { PgTx } from './db';
import { queueSettings } from './ops/common';
import { allCounts, allSettings, delayedCounts } from './ops/upkeep';

export const queueStatements: AsyncPart<PgTx, QueueSql> = {
  queueGet(tx, name) {
    return queueSettings(tx, name);
  },

  /**
   * FOR UPDATE: a claim drawing on the rate bucket, or another configure, waits; so does an
   * enqueue into the queue (its foreign key check takes FOR KEY SHARE), so that no job is added
   * to a queue being deleted.
   */
  async queueGetForUpdate(tx, name) {
    const row = await tx.row('SELECT * FROM queues WHERE name = $1 FOR UPDATE', [name]);
    return row === undefined ? undefined : mapSettings(row);
  },

  /** Another daemon may have created it a moment ago: then nothing is inserted, and it is theirs to announce. */
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

  /** O(queues + delayed jobs): the summed counters, each queue's delayed count, the settings with their owner. */
  async queueList(tx, now) {
    const counts = await allCounts(tx);
    const delayed = await delayedCounts(tx, now);
    return (await allSettings(tx)).map((settings) => ({ ...settings, counts: counts.get(settings.name) ?? emptyCounts(), delayed: delayed.get(settings.name) ?? 0 }));
  },

  queueListSettings(tx) {
    return allSettings(tx);
  },

  async queueCounts(tx, name) {
    return (await allCounts(tx, name)).get(name) ?? emptyCounts();
  },

  async queueUpdate(tx, p) {
    await tx.run(
      `UPDATE queues SET concurrency = $2,
         rate_tokens = CASE WHEN rate_per_second IS NOT DISTINCT FROM $3::float8 AND rate_burst IS NOT DISTINCT FROM $4::int THEN rate_tokens ELSE NULL END,
         rate_per_second = $3, rate_burst = $4, default_max_attempts = $5, backoff_strategy = $6, backoff_base_ms = $7,
         backoff_cap_ms = $8, backoff_jitter = $9, default_timeout_ms = $10, retention_ms = $11, limit_memory_bytes = $12,
         limit_cpu_seconds = $13, limit_open_files = $14, limit_processes = $15, updated_at = $16
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
      ],
    );
  },

  async queueSetPaused(tx, p) {
    return (await tx.run('UPDATE queues SET paused = $2, updated_at = $3 WHERE name = $1', [p.name, p.paused ? 1 : 0, p.now])) > 0;
  },

  /** A materialized CTE: as `id IN (subquery)` the planner may run the LIMIT more than once. */
  async queuePurge(tx, p) {
    return tx.run(
      `WITH batch AS MATERIALIZED (SELECT id FROM jobs WHERE queue = $1 AND state = ANY($2::text[]) AND state <> 'running' LIMIT $3)
       DELETE FROM jobs WHERE id IN (SELECT id FROM batch)`,
      [p.name, p.states, p.limit],
    );
  },

  /** Its counter shards go with it. */
  async queueDelete(tx, name) {
    const deleted = await tx.run('DELETE FROM queues WHERE name = $1', [name]);
    await tx.run('DELETE FROM queue_counts WHERE queue = $1', [name]);
    return deleted > 0;
  },
};
