/**
 * SQL over queues, their counters (queue_counts, kept by the store: counts.ts) and their token
 * buckets. Counter reads add the changes the open write transaction has not written yet.
 */
import type { JobCounts, JobState, Queue, ResourceLimits } from '../../../shared/protocol/types';
import type { QueueDefaults, QueueRetryPolicy, QueueSql, QueueUpdate } from '../statements/queues';
import type { UpkeepSql } from '../statements/upkeep';
import type { PendingCounts } from './counts';
import type { Db } from './db';
import type { DelayedCounts } from './delayed';
import { jobState } from '../mappers';
import { emptyCounts } from '../statements/queues';
import { int, intOrNull, real, scalarInt, text, toRow } from './row';

import { mapSettings } from '../mappers';
import type { StoredQueue } from '../statements/queues';

/** Token-bucket state stored with the queue. */
export interface RateState {
  tokens: number | null;
  refilledAt: number | null;
}

export interface QueueWrite {
  name: string;
  concurrency: number | null;
  ratePerSecond: number | null;
  rateBurst: number | null;
  paused: number;
  defaultMaxAttempts: number;
  backoffStrategy: string;
  backoffBaseMs: number;
  backoffCapMs: number;
  backoffJitter: number;
  defaultTimeoutMs: number;
  retentionMs: number | null;
  now: number;
}

/** A queue's resource limits as its four columns hold them; a queue is created without any. */
export interface LimitColumns {
  limitMemoryBytes: number | null;
  limitCpuSeconds: number | null;
  limitOpenFiles: number | null;
  limitProcesses: number | null;
}

/** A queue's group settings as their columns store them. */
export type GroupColumns = Pick<QueueUpdate, 'groupConcurrency' | 'groupRatePerSecond' | 'groupRateBurst' | 'groupWeights'>;

/** A queue's limits as the four columns store them, NULL for a limit it does not set. */
export function limitColumns(limits: ResourceLimits): LimitColumns {
  return {
    limitMemoryBytes: limits.memoryBytes ?? null,
    limitCpuSeconds: limits.cpuSeconds ?? null,
    limitOpenFiles: limits.openFiles ?? null,
    limitProcesses: limits.processes ?? null,
  };
}

export class QueueStatements implements Omit<QueueSql, 'queuePurge'>, Pick<UpkeepSql, 'counterAll' | 'counterRecount'> {
  private readonly allStmt;
  private readonly dataVersionStmt;
  /**
   * Every queue's settings, read once and kept while the file has not changed under us. Queue
   * settings are read on every enqueue and claim (≈ 12 µs a row read) and change rarely.
   * `PRAGMA data_version` changes when another connection commits, so a second process's
   * configure or pause is seen at the next read; this connection's own queue writes, and any
   * rollback (Store.write), drop the cache explicitly.
   */
  private cache: Map<string, StoredQueue> | null = null;
  private cacheVersion = -1;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly retryPolicyStmt;
  private readonly ageingStmt;
  private readonly ageJobsStmt;
  private readonly clearAgeingStmt;
  private readonly setPausedStmt;
  private readonly rateStmt;
  private readonly setRateStmt;
  private readonly countsStmt;
  private readonly allCountsStmt;
  private readonly countOneStmt;
  private readonly deleteStmt;
  private readonly runningWeightStmt;
  private readonly heavierWaitingStmt;
  private readonly recountStmt;

  constructor(
    db: Db,
    private readonly pending: PendingCounts,
    private readonly delayedCounts: DelayedCounts,
  ) {
    // The owner comes with the settings (a join on a primary key), cached with them.
    this.allStmt = db.prepare(`SELECT q.*, m.project AS owner FROM queues q
      LEFT JOIN managed_objects m ON m.type = 'queue' AND m.name = q.name ORDER BY q.name`);
    this.dataVersionStmt = db.prepare('PRAGMA data_version').pluck();
    this.insertStmt = db.prepare(`
      INSERT INTO queues (name, concurrency, rate_per_second, rate_burst, paused, default_max_attempts,
        backoff_strategy, backoff_base_ms, backoff_cap_ms, backoff_jitter, default_timeout_ms, retention_ms,
        created_at, updated_at)
      VALUES (@name, @concurrency, @ratePerSecond, @rateBurst, @paused, @defaultMaxAttempts,
        @backoffStrategy, @backoffBaseMs, @backoffCapMs, @backoffJitter, @defaultTimeoutMs, @retentionMs, @now, @now)
      ON CONFLICT (name) DO NOTHING`);
    // A changed rate limit starts a full bucket again (tokens NULL = full).
    this.updateStmt = db.prepare(`
      UPDATE queues SET concurrency = @concurrency,
        rate_tokens = CASE WHEN rate_per_second IS @ratePerSecond AND rate_burst IS @rateBurst THEN rate_tokens ELSE NULL END,
        rate_per_second = @ratePerSecond, rate_burst = @rateBurst,
        default_max_attempts = @defaultMaxAttempts, backoff_strategy = @backoffStrategy, backoff_base_ms = @backoffBaseMs,
        backoff_cap_ms = @backoffCapMs, backoff_jitter = @backoffJitter, default_timeout_ms = @defaultTimeoutMs,
        retention_ms = @retentionMs, limit_memory_bytes = @limitMemoryBytes, limit_cpu_seconds = @limitCpuSeconds,
        limit_open_files = @limitOpenFiles, limit_processes = @limitProcesses,
        group_concurrency = @groupConcurrency, group_rate_per_second = @groupRatePerSecond, group_rate_burst = @groupRateBurst,
        group_weights = @groupWeights, updated_at = @now
      WHERE name = @name`);
    this.setPausedStmt = db.prepare('UPDATE queues SET paused = @paused, updated_at = @now WHERE name = @name');
    this.retryPolicyStmt = db.prepare(
      'UPDATE queues SET retry_rule = @retryRule, default_expire_after_ms = @defaultExpireAfterMs, updated_at = @now WHERE name = @name',
    );
    this.ageingStmt = db.prepare('UPDATE queues SET ageing_step = @step, ageing_every_ms = @everyMs, updated_at = @now WHERE name = @name');
    // The walk of jobs_due (queue, state, run_at) over the queue's waiting jobs: a pass reads
    // every waiting job that has waited a step or was raised before, and writes only those whose
    // value changes (at most once per step). A job due again after a retry (priority_set kept,
    // run time moved) drops back to the priority it set.
    // The casts keep the division whole: a number bound from JavaScript may arrive as a REAL.
    const aged = `CAST(min(@maxPriority, coalesce(priority_set, priority) + @step * max(0, (CAST(@now AS INTEGER) - run_at) / CAST(@everyMs AS INTEGER))) AS INTEGER)`;
    this.ageJobsStmt = db.prepare(`
      UPDATE jobs SET priority_set = CASE WHEN ${aged} = coalesce(priority_set, priority) THEN NULL ELSE coalesce(priority_set, priority) END,
        priority = ${aged}
      WHERE queue = @name AND state IN ('queued', 'retrying') AND (run_at <= @now - @everyMs OR priority_set IS NOT NULL) AND priority <> ${aged}`);
    this.clearAgeingStmt = db.prepare('UPDATE jobs SET priority = priority_set, priority_set = NULL WHERE queue = @name AND priority_set IS NOT NULL');
    this.rateStmt = db.prepare('SELECT rate_tokens, rate_refilled_at FROM queues WHERE name = @name');
    this.setRateStmt = db.prepare('UPDATE queues SET rate_tokens = @tokens, rate_refilled_at = @refilledAt WHERE name = @name');
    this.countsStmt = db.prepare('SELECT state, count FROM queue_counts WHERE queue = @name');
    this.allCountsStmt = db.prepare('SELECT queue, state, count FROM queue_counts');
    this.countOneStmt = db.prepare('SELECT count FROM queue_counts WHERE queue = @name AND state = @state').pluck();
    this.deleteStmt = db.prepare('DELETE FROM queues WHERE name = @name');
    this.runningWeightStmt = db.prepare(`
      SELECT coalesce((SELECT count FROM queue_counts WHERE queue = @name AND state = 'running'), 0) AS running, running_extra_weight AS extra
      FROM queues WHERE name = @name`);
    this.heavierWaitingStmt = db.prepare(`SELECT count(*) AS count, coalesce(max(weight), 0) AS heaviest FROM jobs
      WHERE queue = @name AND state IN ('queued', 'retrying') AND weight > @weight`);
    this.recountStmt = db.prepare('SELECT queue, state, count(*) AS count FROM jobs GROUP BY queue, state');
  }

  private settings(): Map<string, StoredQueue> {
    const version = scalarInt(this.dataVersionStmt.get(), 'data_version');
    if (this.cache === null || version !== this.cacheVersion) {
      this.cache = new Map(
        this.allStmt.all().map((raw) => {
          const settings = mapSettings(toRow(raw, 'queue'));
          return [settings.name, settings];
        }),
      );
      this.cacheVersion = version;
    }
    return this.cache;
  }

  /** Drops the cached settings: after this connection's own queue writes, and after a rollback. */
  invalidate(): void {
    this.cache = null;
  }

  /** The queue's settings (shared: do not modify). */
  get(name: string): StoredQueue | undefined {
    return this.settings().get(name);
  }

  /** Every queue's settings, by name (shared: do not modify). */
  all(): StoredQueue[] {
    return [...this.settings().values()];
  }

  /** Inserts the queue unless it exists; returns whether it was created. */
  insert(values: QueueWrite): boolean {
    this.invalidate();
    return this.insertStmt.run(values).changes > 0;
  }

  update(values: Omit<QueueWrite, 'paused'> & LimitColumns & GroupColumns): void {
    this.invalidate();
    this.updateStmt.run(values);
  }

  setPaused(name: string, paused: boolean, now: number): boolean {
    this.invalidate();
    return this.setPausedStmt.run({ name, paused: paused ? 1 : 0, now }).changes > 0;
  }

  // Statements of ../statements/queues.ts (QueueSql; queuePurge is in upkeep.ts, with the other
  // deletes of many jobs).

  queueGet(name: string): StoredQueue | undefined {
    return this.get(name);
  }

  /** Unlike PostgreSQL, SQLite needs no row lock: BEGIN IMMEDIATE holds the write lock for the whole transaction. */
  queueGetForUpdate(name: string): StoredQueue | undefined {
    return this.get(name);
  }

  /** As queueGetForUpdate: no lock is needed. */
  queueGetForConfigure(name: string): StoredQueue | undefined {
    return this.get(name);
  }

  queueCreate(p: { name: string; defaults: QueueDefaults; now: number }): boolean {
    const d = p.defaults;
    return this.insert({
      name: p.name,
      concurrency: d.concurrency,
      ratePerSecond: null,
      rateBurst: null,
      paused: 0,
      defaultMaxAttempts: d.maxAttempts,
      backoffStrategy: d.backoff.strategy,
      backoffBaseMs: d.backoff.baseMs,
      backoffCapMs: d.backoff.capMs,
      backoffJitter: d.backoff.jitter,
      defaultTimeoutMs: d.timeoutMs,
      retentionMs: d.retentionMs,
      now: p.now,
    });
  }

  queueList(): StoredQueue[] {
    return this.all();
  }

  queueUpdate(p: QueueUpdate): void {
    this.update(p);
  }

  queueSetRetryPolicy(p: QueueRetryPolicy): void {
    this.invalidate();
    this.retryPolicyStmt.run(p);
  }

  queueSetAgeing(p: { name: string; step: number | null; everyMs: number | null; now: number }): void {
    this.invalidate();
    this.ageingStmt.run(p);
  }

  queueAgeJobs(p: { name: string; step: number; everyMs: number; maxPriority: number; now: number }): number {
    return this.ageJobsStmt.run(p).changes;
  }

  queueClearAgeing(name: string): number {
    return this.clearAgeingStmt.run({ name }).changes;
  }

  queueSetPaused(p: { name: string; paused: boolean; now: number }): boolean {
    return this.setPaused(p.name, p.paused, p.now);
  }

  queueCounts(name: string): JobCounts {
    return this.counts(name);
  }

  /** Statement counterAll (../statements/upkeep.ts): every queue's maintained counts. */
  counterAll(): Map<string, JobCounts> {
    return this.allCounts();
  }

  queueCountsAll(): Map<string, JobCounts> {
    return this.allCounts();
  }

  queueDelayed(p: { name: string; now: number }): number {
    return this.delayed(p.name, p.now);
  }

  queueDelayedAll(now: number): Map<string, number> {
    return new Map(this.all().map((q) => [q.name, this.delayed(q.name, now)]));
  }

  /**
   * Unlike PostgreSQL, SQLite answers from its counters (with the open transaction's changes):
   * BEGIN IMMEDIATE holds the write lock, so no other process has added or claimed a job of the
   * queue since they were read, and counting the jobs themselves would cost a scan.
   */
  queueJobsLeft(name: string): { running: number; total: number } {
    const counts = this.counts(name);
    return { running: counts.running, total: Object.values(counts).reduce((a, b) => a + b, 0) };
  }

  queueHeavierWaiting(p: { name: string; weight: number }): { count: number; heaviest: number } {
    const row = toRow(this.heavierWaitingStmt.get(p), 'heavier waiting jobs');
    return { count: int(row, 'count'), heaviest: int(row, 'heaviest') };
  }

  queueDelete(name: string): void {
    this.delete(name);
  }

  rateState(name: string): RateState {
    const row = toRow(this.rateStmt.get({ name }), 'queue rate');
    return { tokens: row.get('rate_tokens') === null ? null : real(row, 'rate_tokens'), refilledAt: intOrNull(row, 'rate_refilled_at') };
  }

  counts(name: string): JobCounts {
    const counts = emptyCounts();
    for (const raw of this.countsStmt.all({ name })) {
      const row = toRow(raw, 'queue count');
      const state = jobState(row);
      counts[state] = int(row, 'count') + this.pending.pending(name, state);
    }
    return counts;
  }

  /** Every queue's counters, by queue name. */
  allCounts(): Map<string, JobCounts> {
    const byQueue = new Map<string, JobCounts>();
    for (const raw of this.allCountsStmt.all()) {
      const row = toRow(raw, 'queue count');
      const queue = text(row, 'queue');
      let counts = byQueue.get(queue);
      if (!counts) byQueue.set(queue, (counts = emptyCounts()));
      const state = jobState(row);
      counts[state] = int(row, 'count') + this.pending.pending(queue, state);
    }
    return byQueue;
  }

  count(name: string, state: JobState): number {
    const v = this.countOneStmt.get({ name, state });
    return (v === undefined ? 0 : scalarInt(v, 'queue count')) + this.pending.pending(name, state);
  }

  /**
   * The weight of the queue's running jobs (what its concurrency limit counts): one per running
   * job, as counted, plus what they weigh beyond one (migration 9), with the open transaction's
   * changes. One statement, as the count alone was.
   */
  runningWeight(name: string): number {
    const raw = this.runningWeightStmt.get({ name });
    const row = raw === undefined ? undefined : toRow(raw, 'queue running weight');
    const running = (row === undefined ? 0 : int(row, 'running')) + this.pending.pending(name, 'running');
    const extra = (row === undefined ? 0 : int(row, 'extra')) + this.pending.pendingWeight(name);
    // A negative extra weight counts as none: see migration 9 on a Spool from before weights.
    return running + Math.max(0, extra);
  }

  /** Queued jobs whose run time is still to come (see DelayedCounts). */
  delayed(name: string, now: number): number {
    return this.delayedCounts.get(name, now);
  }

  delete(name: string): boolean {
    this.invalidate();
    this.delayedCounts.forget(name);
    return this.deleteStmt.run({ name }).changes > 0;
  }

  /** Counts by a full scan of jobs: only for verifying the maintained counters. */
  counterRecount(): { queue: string; state: JobState; count: number }[] {
    return this.recountStmt.all().map((raw) => {
      const row = toRow(raw, 'recount');
      return { queue: text(row, 'queue'), state: jobState(row), count: int(row, 'count') };
    });
  }

  queueSetRateState(p: { name: string; tokens: number; refilledAt: number }): void {
    this.setRateStmt.run(p);
  }
}

export function withCounts(settings: StoredQueue, counts: JobCounts, delayed: number): Queue {
  return { ...settings, counts, delayed };
}
