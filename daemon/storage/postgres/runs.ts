/**
 * Statements over the run history and the finished figures of stats (../statements/runs.ts), in
 * PostgreSQL. As in SQLite (see ../sqlite/runs.ts for why), two kinds of attempt have no row in
 * job_runs: a running one, and a completed one while its job stays completed; `runsOfJob` puts
 * both back from the job row.
 */
import type { AsyncPart } from '../statements';
import { BUCKET_MS, type RunSql } from '../statements/runs';
import type { JobHistoryEvent } from '../../../shared/protocol';
import type { JobState } from '../../../shared/protocol/types';
import { int, intOrNull, text, textOrNull } from '../rows';
import type { PgTx } from './db';
import type { JobRun } from '../../../shared/protocol/types';
import { mapRun } from '../mappers';


const COMPLETED_ATTEMPT = `jobs WHERE id = $1 AND state = 'completed' AND runs > 0 AND worker_id IS NOT NULL`;

/** Writes the history row of a completed job's last attempt (only its job row described it). Call before it leaves `completed`. */
export async function keepCompleted(tx: PgTx, jobId: string): Promise<void> {
  await tx.run(
    `INSERT INTO job_runs (job_id, run, attempt, worker_id, started_at, finished_at, outcome)
     SELECT id, runs, attempts, worker_id, coalesce(started_at, finished_at), finished_at, 'completed' FROM ${COMPLETED_ATTEMPT}
     ON CONFLICT (job_id, run) DO NOTHING`,
    [jobId],
  );
}

/** A job's history: the finished runs, then its latest attempt as the job row describes it. */
export async function runsOf(tx: PgTx, jobId: string): Promise<JobRun[]> {
  const rows = await tx.rows(
    `SELECT job_id, run, attempt, worker_id, started_at, finished_at, outcome, error, stack, exit_code, http_status
     FROM job_runs WHERE job_id = $1
     UNION ALL
     SELECT id, runs, attempts, worker_id, started_at, NULL, 'running', NULL, NULL, NULL, NULL FROM jobs WHERE id = $1 AND state = 'running'
     UNION ALL
     SELECT id, runs, attempts, worker_id, coalesce(started_at, finished_at), finished_at, 'completed', NULL, NULL, NULL, NULL
     FROM ${COMPLETED_ATTEMPT} AND NOT EXISTS (SELECT 1 FROM job_runs r WHERE r.job_id = $1 AND r.run = jobs.runs)
     ORDER BY run`,
    [jobId],
  );
  return rows.map(mapRun);
}

/** Completed and failed attempts in the buckets overlapping the last `windowMs`. */
export async function finishedSince(tx: PgTx, now: number, windowMs: number): Promise<{ completed: number; failed: number }> {
  const from = Math.floor((now - windowMs) / BUCKET_MS) + 1;
  const row = await tx.row('SELECT coalesce(sum(completed), 0) AS completed, coalesce(sum(failed), 0) AS failed FROM stat_buckets WHERE bucket >= $1', [from]);
  return { completed: Number(row?.get('completed') ?? 0), failed: Number(row?.get('failed') ?? 0) };
}

/**
 * Counts `n` finished attempts in their 10-second bucket, in this connection's shard (no hot
 * row). Unlike SQLite, which counts in memory and writes at commit, this is a statement.
 */
export async function countFinished(tx: PgTx, outcome: 'completed' | 'failed', now: number, n: number): Promise<void> {
  if (n === 0) return;
  await tx.run(
    `INSERT INTO stat_buckets AS b (bucket, shard, ${outcome}) VALUES ($1, pg_backend_pid() % 64, $2)
     ON CONFLICT (bucket, shard) DO UPDATE SET ${outcome} = b.${outcome} + EXCLUDED.${outcome}`,
    [statsBucket(now), n],
  );
}

/** The 10-second stats bucket of `now`. */
export function statsBucket(now: number): number {
  return Math.floor(now / BUCKET_MS);
}

export const runStatements: AsyncPart<PgTx, RunSql> = {
  runsOfJob(tx, jobId) {
    return runsOf(tx, jobId);
  },

  async jobEventAdd(tx, e) {
    await tx.run(`INSERT INTO job_events (job_id, at, state, cause, who, attempt, detail) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      e.jobId,
      e.at,
      e.state,
      e.cause,
      e.who,
      e.attempt,
      e.detail,
    ]);
  },

  async jobEventsOf(tx, jobId) {
    const rows = await tx.rows(`SELECT at, state, cause, who, attempt, detail FROM job_events WHERE job_id = $1 ORDER BY seq`, [jobId]);
    return rows.map(
      (row): JobHistoryEvent => ({
        at: int(row, 'at'),
        state: text(row, 'state') as JobState,
        cause: text(row, 'cause'),
        who: textOrNull(row, 'who'),
        attempt: intOrNull(row, 'attempt'),
        detail: textOrNull(row, 'detail'),
      }),
    );
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
