/**
 * SQL for bulk removal and timers: purging a queue, retention, and the next time anything
 * becomes due. Deletes go in bounded batches so no single transaction holds the write lock
 * for long, whatever the queue's size.
 */
import type { JobState } from '../../../shared/protocol/types';
import type { PendingCounts } from './counts';
import type { Db } from './db';
import type { DelayedCounts } from './delayed';
import { jobState } from '../mappers';
import type { JobRetention, UpkeepSql } from '../statements/upkeep';
import type { QueueSql } from '../statements/queues';
import { scalarIntOrNull, toRow } from './row';

/** The bulk deletes: a queue's purge and retention. */
export class UpkeepStatements implements Pick<QueueSql, 'queuePurge'>, Pick<UpkeepSql, 'jobDeleteExpired'> {
  private readonly purgeStmt;
  private readonly retentionStmt;
  private readonly nextDueStmt;
  private readonly nextLeaseStmt;

  constructor(
    db: Db,
    private readonly counts: PendingCounts,
    private readonly delayed: DelayedCounts,
  ) {
    this.purgeStmt = db.prepare(`
      DELETE FROM jobs WHERE id IN (
        SELECT id FROM jobs WHERE queue = @queue AND state IN (SELECT value FROM json_each(@states)) AND state <> 'running'
        LIMIT +@limit)
      RETURNING state`);
    // Finished jobs in id (creation) order: the old ones come first, so a batch stops early.
    // `id < @beforeId` bounds each state's index range: a job finishes after it was created, so
    // one that finished before the cutoff was created before it too. Without the bound, a batch
    // that finds fewer than `limit` expired jobs would walk every job still inside its retention
    // window (hundreds of thousands on a busy queue) while holding the write lock.
    this.retentionStmt = db.prepare(`
      DELETE FROM jobs WHERE id IN (
        SELECT id FROM jobs INDEXED BY jobs_list
        WHERE queue = @queue AND state IN ('completed', 'dead', 'cancelled') AND state <> 'running'
          AND id < @beforeId AND finished_at < @cutoff
        LIMIT +@limit)
      RETURNING state`);
    // Both read the first entry of a partial index (jobs_due, jobs_lease): O(log n). The terms
    // repeating the index's own WHERE let SQLite prove the partial index applies; a future run
    // time is always after the job's creation, which is what puts a job in jobs_due.
    this.nextDueStmt = db
      .prepare(`SELECT min(run_at) FROM jobs INDEXED BY jobs_due WHERE queue = @queue AND state IN ('queued', 'retrying') AND run_at > created_at AND state = @state AND run_at > @now`)
      .pluck();
    this.nextLeaseStmt = db.prepare(`SELECT min(lease_expires_at) FROM jobs INDEXED BY jobs_lease WHERE state = 'running'`).pluck();
  }

  /** Deletes up to `limit` jobs of the queue in the given states (never running ones). */
  queuePurge(p: { name: string; states: JobState[]; limit: number }): number {
    this.delayed.forget(p.name);
    return this.counted(p.name, this.purgeStmt.all({ queue: p.name, states: JSON.stringify(p.states), limit: p.limit }));
  }

  /**
   * Deletes up to `limit` finished jobs of the queue that finished before `cutoff`, oldest first.
   * `beforeId` is the smallest id made at `cutoff`: only jobs with smaller ids are looked at.
   */
  jobDeleteExpired(p: JobRetention): number {
    return this.counted(p.queue, this.retentionStmt.all(p));
  }

  /** Takes the deleted rows (their states, from RETURNING) off the queue's counters. */
  private counted(queue: string, deleted: unknown[]): number {
    for (const raw of deleted) this.counts.add(queue, jobState(toRow(raw, 'deleted job')), -1);
    return deleted.length;
  }

  nextDue(queue: string, state: 'queued' | 'retrying', now: number): number | null {
    return scalarIntOrNull(this.nextDueStmt.get({ queue, state, now }), 'next due');
  }

  nextLeaseExpiry(): number | null {
    return scalarIntOrNull(this.nextLeaseStmt.get(), 'next lease expiry');
  }
}
