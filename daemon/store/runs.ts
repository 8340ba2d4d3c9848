/**
 * SQL over job_runs (one row per attempt, kept as history) and stat_buckets (finished attempts
 * per 10 s, for the last-minute and last-hour figures of stats).
 */
import type { JobRun, RunOutcome } from '../../shared/types';
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

export class RunStatements {
  private readonly endStmt;
  private readonly ofJobStmt;
  private readonly bumpStmt;
  private readonly windowStmt;
  private readonly pruneStmt;

  constructor(db: Db) {
    this.endStmt = db.prepare(`
      UPDATE job_runs SET finished_at = @now, outcome = @outcome, error = @error, stack = @stack,
        exit_code = @exitCode, http_status = @httpStatus
      WHERE job_id = @jobId AND run = (SELECT runs FROM jobs WHERE id = @jobId) AND outcome = 'running'`);
    this.ofJobStmt = db.prepare('SELECT * FROM job_runs WHERE job_id = @jobId ORDER BY run');
    this.bumpStmt = db.prepare(`
      INSERT INTO stat_buckets (bucket, completed, failed) VALUES (@bucket, @completed, @failed)
      ON CONFLICT (bucket) DO UPDATE SET completed = completed + excluded.completed, failed = failed + excluded.failed`);
    this.windowStmt = db.prepare(`
      SELECT coalesce(sum(completed), 0) AS completed, coalesce(sum(failed), 0) AS failed
      FROM stat_buckets WHERE bucket >= @from`);
    this.pruneStmt = db.prepare('DELETE FROM stat_buckets WHERE bucket < @before');
  }

  /** Closes the job's current (latest) run. */
  end(values: RunEnd): void {
    this.endStmt.run(values);
  }

  ofJob(jobId: string): JobRun[] {
    return this.ofJobStmt.all({ jobId }).map((raw) => mapRun(toRow(raw, 'job run')));
  }

  /** Counts a finished attempt in its 10-second bucket. */
  countFinished(outcome: 'completed' | 'failed', now: number): void {
    this.bumpStmt.run({ bucket: Math.floor(now / BUCKET_MS), completed: outcome === 'completed' ? 1 : 0, failed: outcome === 'failed' ? 1 : 0 });
  }

  /** Completed and failed attempts in the buckets overlapping the last `windowMs`. */
  finishedSince(now: number, windowMs: number): { completed: number; failed: number } {
    const row = toRow(this.windowStmt.get({ from: Math.floor((now - windowMs) / BUCKET_MS) + 1 }), 'stat window');
    return { completed: scalarInt(row.get('completed'), 'completed'), failed: scalarInt(row.get('failed'), 'failed') };
  }

  pruneBuckets(olderThan: number): void {
    this.pruneStmt.run({ before: Math.floor(olderThan / BUCKET_MS) });
  }
}
