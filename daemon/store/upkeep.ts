/**
 * SQL for bulk removal and timers: purging a queue, retention, and the next time anything
 * becomes due. Deletes go in bounded batches so no single transaction holds the write lock
 * for long, whatever the queue's size.
 */
import type { JobState } from '../../shared/types';
import type { Db } from './db';
import { scalarIntOrNull } from './row';

export class UpkeepStatements {
  private readonly purgeStmt;
  private readonly retentionStmt;
  private readonly nextDueStmt;
  private readonly nextLeaseStmt;

  constructor(db: Db) {
    this.purgeStmt = db.prepare(`
      DELETE FROM jobs WHERE id IN (
        SELECT id FROM jobs WHERE queue = @queue AND state IN (SELECT value FROM json_each(@states)) AND state <> 'running'
        LIMIT @limit)`);
    this.retentionStmt = db.prepare(`
      DELETE FROM jobs WHERE id IN (
        SELECT id FROM jobs WHERE queue = @queue AND state IN ('completed', 'dead', 'cancelled') AND finished_at < @cutoff
        ORDER BY finished_at LIMIT @limit)`);
    // Both read the first entry of a partial index (jobs_due, jobs_lease): O(log n).
    this.nextDueStmt = db.prepare(`SELECT min(run_at) FROM jobs WHERE queue = @queue AND state = @state AND run_at > @now`).pluck();
    this.nextLeaseStmt = db.prepare(`SELECT min(lease_expires_at) FROM jobs WHERE state = 'running'`).pluck();
  }

  /** Deletes up to `limit` jobs of the queue in the given states (never running ones). */
  purge(queue: string, states: JobState[], limit: number): number {
    return this.purgeStmt.run({ queue, states: JSON.stringify(states), limit }).changes;
  }

  /** Deletes up to `limit` finished jobs of the queue that finished before `cutoff`, oldest first. */
  retention(queue: string, cutoff: number, limit: number): number {
    return this.retentionStmt.run({ queue, cutoff, limit }).changes;
  }

  nextDue(queue: string, state: 'queued' | 'retrying', now: number): number | null {
    return scalarIntOrNull(this.nextDueStmt.get({ queue, state, now }), 'next due');
  }

  nextLeaseExpiry(): number | null {
    return scalarIntOrNull(this.nextLeaseStmt.get(), 'next lease expiry');
  }
}
