/**
 * SQL over job_runs (one row per finished attempt, kept as history) and stat_buckets (finished
 * attempts per 10 s, for the last-minute and last-hour figures of stats).
 *
 * An attempt's row is written once, when it ends, from the job row it ran under: while it runs,
 * the job row (worker_id, attempts, runs, started_at) already says everything the row would.
 */
import type { JobRun, RunOutcome } from '../../shared/types';
import type { PendingCounts } from './counts';
import type { Db } from './db';
import { mapRun } from './mappers';
import { scalarInt, toRow } from './row';

export const BUCKET_MS = 10_000;

export interface RunEnd {
  jobId: string;
  outcome: Exclude<RunOutcome, 'running'>;
  error: string | null;
  stack: string | null;
  exitCode: number | null;
  httpStatus: number | null;
  now: number;
}

/** A finished attempt whose facts the caller has already, without error details. */
export interface FinishedRun {
  jobId: string;
  run: number;
  attempt: number;
  workerId: string;
  startedAt: number;
  finishedAt: number;
  outcome: Exclude<RunOutcome, 'running'>;
}

export class RunStatements {
  private readonly recordStmt;
  private readonly insertStmt;
  private readonly insertManyStmt;
  private readonly ofJobStmt;
  private readonly windowStmt;
  private readonly pruneStmt;

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
    this.insertStmt = db.prepare(`
      INSERT OR REPLACE INTO job_runs (job_id, run, attempt, worker_id, started_at, finished_at, outcome, error, stack, exit_code, http_status)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    // Many finished runs in one statement, each [jobId, run, attempt, workerId, startedAt, finishedAt, outcome].
    this.insertManyStmt = db.prepare(`
      INSERT OR REPLACE INTO job_runs (job_id, run, attempt, worker_id, started_at, finished_at, outcome, error, stack, exit_code, http_status)
      SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, NULL, NULL, NULL, NULL
      FROM json_each(@runs)`);
    // The finished runs, then the running one as its job row describes it.
    this.ofJobStmt = db.prepare(`
      SELECT job_id, run, attempt, worker_id, started_at, finished_at, outcome, error, stack, exit_code, http_status
      FROM job_runs WHERE job_id = @jobId
      UNION ALL
      SELECT id, runs, attempts, worker_id, started_at, NULL, 'running', NULL, NULL, NULL, NULL
      FROM jobs WHERE id = @jobId AND state = 'running'
      ORDER BY run`);
    this.windowStmt = db.prepare(`
      SELECT coalesce(sum(completed), 0) AS completed, coalesce(sum(failed), 0) AS failed
      FROM stat_buckets WHERE bucket >= @from`);
    this.pruneStmt = db.prepare('DELETE FROM stat_buckets WHERE bucket < @before');
  }

  /**
   * Writes the history row of the job's running attempt, ending now. Call it before the job
   * row leaves 'running' (the row is read from it); does nothing for a job not running.
   */
  record(values: RunEnd): void {
    this.recordStmt.run(values);
  }

  /** Writes a finished run whose facts the caller has already (a complete's RETURNING). */
  insert(run: FinishedRun): void {
    this.insertStmt.run(run.jobId, run.run, run.attempt, run.workerId, run.startedAt, run.finishedAt, run.outcome, null, null, null, null);
  }

  /** `insert` for many runs, in one statement. */
  insertMany(runs: readonly FinishedRun[]): void {
    if (runs.length === 0) return;
    this.insertManyStmt.run({ runs: JSON.stringify(runs.map((r) => [r.jobId, r.run, r.attempt, r.workerId, r.startedAt, r.finishedAt, r.outcome])) });
  }

  ofJob(jobId: string): JobRun[] {
    return this.ofJobStmt.all({ jobId }).map((raw) => mapRun(toRow(raw, 'job run')));
  }

  /** Counts a finished attempt in its 10-second bucket (written when the transaction commits). */
  countFinished(outcome: 'completed' | 'failed', now: number): void {
    this.counts.finished(Math.floor(now / BUCKET_MS), outcome);
  }

  /** Completed and failed attempts in the buckets overlapping the last `windowMs`. */
  finishedSince(now: number, windowMs: number): { completed: number; failed: number } {
    const from = Math.floor((now - windowMs) / BUCKET_MS) + 1;
    const row = toRow(this.windowStmt.get({ from }), 'stat window');
    const pending = this.counts.finishedSince(from);
    return { completed: scalarInt(row.get('completed'), 'completed') + pending.completed, failed: scalarInt(row.get('failed'), 'failed') + pending.failed };
  }

  pruneBuckets(olderThan: number): void {
    this.pruneStmt.run({ before: Math.floor(olderThan / BUCKET_MS) });
  }
}
