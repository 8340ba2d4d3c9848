/**
 * Statements of upkeep (../statements/upkeep.ts) in SQLite, with a queue's purge: the bulk
 * deletes, and what the daemon's wake-up timer reads. Deletes go in bounded batches so no single
 * transaction holds the write lock for long, whatever the queue's size.
 */
import type { JobState } from '../../../shared/protocol/types';
import type { PendingCounts } from './counts';
import type { Db } from './db';
import type { DelayedCounts } from './delayed';
import type { QueueStatements } from './queues';
import { jobState } from '../mappers';
import type { JobRetention, RateLimitedQueue, UpkeepSql } from '../statements/upkeep';
import { countUnfinishedOfRun, type PurgedJobs, type QueueSql } from '../statements/queues';
import { textOrNull } from '../rows';
import { scalarIntOrNull, toRow } from './row';

/** The bulk deletes (a queue's purge and retention) and the wake-up timer's reads. */
export class UpkeepStatements implements Pick<QueueSql, 'queuePurge'>, Pick<UpkeepSql, 'jobDeleteExpired' | 'wakeDueAt' | 'wakeRateLimited'> {
  private readonly purgeStmt;
  private readonly retentionStmt;
  private readonly nextDueStmt;
  private readonly nextLeaseStmt;
  private readonly nextScheduleStmt;

  constructor(
    db: Db,
    private readonly counts: PendingCounts,
    private readonly delayed: DelayedCounts,
    private readonly queues: QueueStatements,
  ) {
    this.purgeStmt = db.prepare(`
      DELETE FROM jobs WHERE id IN (
        SELECT id FROM jobs WHERE queue = @queue AND state IN (SELECT value FROM json_each(@states)) AND state <> 'running'
        LIMIT +@limit)
      RETURNING state, workflow_run_id`);
    // Finished jobs in id (creation) order: the old ones come first, so a batch stops early.
    // `id < @beforeId` bounds each state's index range: a job finishes after it was created, so
    // one that finished before the cutoff was created before it too. Without the bound, a batch
    // that finds fewer than `limit` expired jobs would walk every job still inside its retention
    // window (hundreds of thousands on a busy queue) while holding the write lock.
    // A job that a job not yet ended depends on is kept: that job is still to be handed its
    // result (a workflow broken by its own retention is what Oban #722 reported). Nor does a job
    // of a workflow run that is still running go: its run is read (and retried) whole.
    this.retentionStmt = db.prepare(`
      DELETE FROM jobs WHERE id IN (
        SELECT id FROM jobs INDEXED BY jobs_list
        WHERE queue = @queue AND state IN ('completed', 'dead', 'cancelled') AND state <> 'running'
          AND id < @beforeId AND finished_at < @cutoff
          AND (dependents = 0 OR NOT EXISTS (
            SELECT 1 FROM job_dependencies d JOIN jobs c ON c.id = d.job_id
            WHERE d.depends_on_id = jobs.id AND c.state NOT IN ('completed', 'dead', 'cancelled')))
          AND (workflow_run_id IS NULL OR NOT EXISTS (
            SELECT 1 FROM workflow_runs r WHERE r.id = jobs.workflow_run_id AND r.state = 'running'))
        LIMIT +@limit)
      RETURNING state`);
    // Both read the first entry of a partial index (jobs_due, jobs_lease): O(log n). The terms
    // repeating the index's own WHERE let SQLite prove the partial index applies; a future run
    // time is always after the job's creation, which is what puts a job in jobs_due.
    this.nextDueStmt = db
      .prepare(`SELECT min(run_at) FROM jobs INDEXED BY jobs_due WHERE queue = @queue AND state IN ('queued', 'retrying') AND run_at > created_at AND state = @state AND run_at > @now`)
      .pluck();
    this.nextLeaseStmt = db.prepare(`SELECT min(lease_expires_at) FROM jobs INDEXED BY jobs_lease WHERE state = 'running'`).pluck();
    this.nextScheduleStmt = db.prepare('SELECT min(next_run_at) FROM schedules WHERE enabled = 1').pluck();
  }

  /** Deletes up to `limit` jobs of the queue in the given states (never running ones). */
  queuePurge(p: { name: string; states: JobState[]; limit: number }): PurgedJobs {
    this.delayed.forget(p.name);
    const rows = this.purgeStmt.all({ queue: p.name, states: JSON.stringify(p.states), limit: p.limit });
    const unfinishedByRun = new Map<string, number>();
    for (const raw of rows) {
      const row = toRow(raw, 'purged job');
      countUnfinishedOfRun(unfinishedByRun, jobState(row), textOrNull(row, 'workflow_run_id'));
    }
    return { deleted: this.counted(p.name, rows), unfinishedByRun };
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

  /**
   * Per queue that is not paused, the first entry of jobs_due for each waiting state (a query a
   * queue keeps to its index range, where one over all queues would scan), then the first lease
   * to expire and the next schedule.
   */
  wakeDueAt(now: number): number | null {
    let next: number | null = null;
    const consider = (t: number | null): void => {
      if (t !== null && (next === null || t < next)) next = t;
    };
    for (const q of this.queues.all()) {
      if (q.paused) continue;
      for (const state of ['queued', 'retrying'] as const) consider(scalarIntOrNull(this.nextDueStmt.get({ queue: q.name, state, now }), 'next due'));
    }
    consider(scalarIntOrNull(this.nextLeaseStmt.get(), 'next lease expiry'));
    consider(scalarIntOrNull(this.nextScheduleStmt.get(), 'next schedule'));
    return next;
  }

  /** From the queues' settings and their maintained counters: no scan of jobs. */
  wakeRateLimited(): RateLimitedQueue[] {
    const out: RateLimitedQueue[] = [];
    for (const q of this.queues.all()) {
      if (q.paused || q.rateLimit === null) continue;
      const counts = this.queues.counts(q.name);
      if (counts.queued + counts.retrying > 0) out.push({ name: q.name, rateLimit: q.rateLimit, bucket: this.queues.rateState(q.name) });
    }
    return out;
  }
}
