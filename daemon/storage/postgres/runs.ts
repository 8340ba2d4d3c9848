/**
 * Statements over the run history and the finished figures of stats (../statements/runs.ts), in
 * PostgreSQL. As in SQLite (see ../sqlite/runs.ts for why), two kinds of attempt have no row in
 * job_runs: a running one, and a completed one while its job stays completed; `runsOfJob` puts
 * both back from the job row.
 */
import type { AsyncPart } from '../statements';
import type { RunSql } from '../statements/runs';
import type { PgTx } from './db';
import { BUCKET_MS, keepCompleted, runsOf } from './ops/runs';

/**
 * Counts `n` finished attempts in their 10-second bucket, in this connection's shard (no hot
 * row). Unlike SQLite, which counts in memory and writes at commit, this is a statement.
 */
export async function countFinished(tx: PgTx, outcome: 'completed' | 'failed', now: number, n: number): Promise<void> {
  if (n === 0) return;
  await tx.run(
    `INSERT INTO stat_buckets AS b (bucket, shard, ${outcome}) VALUES ($1, pg_backend_pid() % 64, $2)
     ON CONFLICT (bucket, shard) DO UPDATE SET ${outcome} = b.${outcome} + EXCLUDED.${outcome}`,
    [Math.floor(now / BUCKET_MS), n],
  );
}

export const runStatements: AsyncPart<PgTx, RunSql> = {
  runsOfJob(tx, jobId) {
    return runsOf(tx, jobId);
  },

  runKeepCompleted(tx, jobId) {
    return keepCompleted(tx, jobId);
  },

  async runRecord(tx, end) {
    await tx.run(
      `INSERT INTO job_runs (job_id, run, attempt, worker_id, started_at, finished_at, outcome, error, stack, exit_code, http_status)
       SELECT id, runs, attempts, worker_id, started_at, $2, $3, $4, $5, $6, $7 FROM jobs WHERE id = $1 AND state = 'running'
       ON CONFLICT (job_id, run) DO UPDATE SET finished_at = EXCLUDED.finished_at, outcome = EXCLUDED.outcome, error = EXCLUDED.error,
         stack = EXCLUDED.stack, exit_code = EXCLUDED.exit_code, http_status = EXCLUDED.http_status`,
      [end.jobId, end.now, end.outcome, end.error, end.stack, end.exitCode, end.httpStatus],
    );
  },

  statsCountFinished(tx, p) {
    return countFinished(tx, p.outcome, p.now, p.n);
  },
};
