/**
 * SQL over job_runs (the run history: one row per finished attempt) and stat_buckets (finished
 * attempts per 10 s, for the last-minute and last-hour figures of stats).
 *
 * The job row is the record of its latest attempt, so two kinds of attempt have no row here:
 *
 * - a running attempt: the job row (worker_id, attempts, runs, started_at) says everything the
 *   row would; the attempt's row is written when it ends (migration 2);
 * - a completed attempt, while the job stays completed: worker_id, started_at and finished_at
 *   stay on the job row and the state says the outcome, which is all such a row would hold
 *   (a completion has no error, stack, exit code or HTTP status). Its row is written only if
 *   the job leaves `completed`, by a user's retry (runKeepCompleted); a delete takes the history
 *   with it anyway (migration 6).
 *
 * Completing is the most common end of an attempt, and a history row is one more B-tree write
 * in its commit: leaving it out took the CPU per job of claiming 200 and completing them in one
 * batch down by about 14 % (BENCHMARKS.md). ofJob puts both kinds back into the history.
 */
import type { JobRun } from '../../../shared/protocol/types';
import type { PendingCounts } from './counts';
import type { Db } from './db';
import { mapRun } from '../mappers';
import { scalarInt, toRow } from './row';
import { BUCKET_MS, type JobEventRow, type RunEnd, type RunSql } from '../statements/runs';
import type { JobHistoryEvent } from '../../../shared/protocol';
import type { UpkeepSql } from '../statements/upkeep';

/** A completed job whose row describes its last attempt (a job that never ran has none). */
const COMPLETED_ATTEMPT = `jobs WHERE id = @jobId AND state = 'completed' AND runs > 0 AND worker_id IS NOT NULL`;

export class RunStatements implements RunSql, Pick<UpkeepSql, 'statsFinishedSince' | 'statsPrune'> {
  private readonly recordStmt;
  private readonly keepCompletedStmt;
  private readonly ofJobStmt;
  private readonly windowStmt;
  private readonly pruneStmt;
  private readonly eventAddStmt;
  private readonly eventsOfStmt;

  constructor(
    db: Db,
    private readonly counts: PendingCounts,
  ) {
    // OR REPLACE: a Spool from before migration 2, still running on the same file while a newer
    // one migrated it, may have written a 'running' row for this attempt; the final row wins.
    this.recordStmt = db.prepare(`
      INSERT OR REPLACE INTO job_runs (job_id, run, attempt, worker_id, started_at, finished_at, outcome, error, stack, exit_code, http_status)
      SELECT id, runs, attempts, worker_id, started_at, @now, @outcome, @error, @stack, @exitCode, @httpStatus
      FROM jobs WHERE id = @jobId AND state = 'running'`);
    // OR IGNORE: a Spool from before migration 6 wrote the completed attempt's row already.
    this.keepCompletedStmt = db.prepare(`
      INSERT OR IGNORE INTO job_runs (job_id, run, attempt, worker_id, started_at, finished_at, outcome, error, stack, exit_code, http_status)
      SELECT id, runs, attempts, worker_id, coalesce(started_at, finished_at), finished_at, 'completed', NULL, NULL, NULL, NULL
      FROM ${COMPLETED_ATTEMPT}`);
    // The finished runs, then the latest attempt as its job row describes it: running, or
    // completed (unless a Spool from before migration 6 wrote its row).
    this.ofJobStmt = db.prepare(`
      SELECT job_id, run, attempt, worker_id, started_at, finished_at, outcome, error, stack, exit_code, http_status
      FROM job_runs WHERE job_id = @jobId
      UNION ALL
      SELECT id, runs, attempts, worker_id, started_at, NULL, 'running', NULL, NULL, NULL, NULL
      FROM jobs WHERE id = @jobId AND state = 'running'
      UNION ALL
      SELECT id, runs, attempts, worker_id, coalesce(started_at, finished_at), finished_at, 'completed', NULL, NULL, NULL, NULL
      FROM ${COMPLETED_ATTEMPT} AND NOT EXISTS (SELECT 1 FROM job_runs WHERE job_id = @jobId AND run = jobs.runs)
      ORDER BY run`);
    this.windowStmt = db.prepare(`
      SELECT coalesce(sum(completed), 0) AS completed, coalesce(sum(failed), 0) AS failed
      FROM stat_buckets WHERE bucket >= @from`);
    this.pruneStmt = db.prepare('DELETE FROM stat_buckets WHERE bucket < @before');
    this.eventAddStmt = db.prepare(`INSERT INTO job_events (job_id, at, state, cause, who, attempt, detail) VALUES (@jobId, @at, @state, @cause, @who, @attempt, @detail)`);
    this.eventsOfStmt = db.prepare(`SELECT at, state, cause, who, attempt, detail FROM job_events WHERE job_id = ? ORDER BY seq`);
  }

  jobEventAdd(event: JobEventRow): void {
    this.eventAddStmt.run(event);
  }

  jobEventsOf(jobId: string): JobHistoryEvent[] {
    return (this.eventsOfStmt.all(jobId) as JobHistoryEvent[]).map((e) => ({ ...e }));
  }

  runRecord(values: RunEnd): void {
    this.recordStmt.run(values);
  }

  /**
   * Writes the history row of a completed job's last attempt, which until now only its job row
   * described. Call it before the job leaves `completed`; does nothing for any other job.
   */
  runKeepCompleted(jobId: string): void {
    this.keepCompletedStmt.run({ jobId });
  }

  runsOfJob(jobId: string): JobRun[] {
    return this.ofJob(jobId);
  }

  ofJob(jobId: string): JobRun[] {
    return this.ofJobStmt.all({ jobId }).map((raw) => mapRun(toRow(raw, 'job run')));
  }

  /** Counted in memory and written when the transaction commits (PendingCounts), so no statement runs here. */
  statsCountFinished(p: { outcome: 'completed' | 'failed'; now: number; n: number }): void {
    if (p.n > 0) this.counts.finished(Math.floor(p.now / BUCKET_MS), p.outcome, p.n);
  }

  /** With the counts the open write transaction has not written yet. */
  statsFinishedSince(p: { now: number; windowMs: number }): { completed: number; failed: number } {
    const from = Math.floor((p.now - p.windowMs) / BUCKET_MS) + 1;
    const row = toRow(this.windowStmt.get({ from }), 'stat window');
    const pending = this.counts.finishedSince(from);
    return { completed: scalarInt(row.get('completed'), 'completed') + pending.completed, failed: scalarInt(row.get('failed'), 'failed') + pending.failed };
  }

  statsPrune(olderThan: number): void {
    this.pruneStmt.run({ before: Math.floor(olderThan / BUCKET_MS) });
  }
}
