/**
 * Statements of upkeep (../statements/upkeep.ts), in PostgreSQL: the finished figures of stats,
 * retention, the counters' check, and the reads behind the daemon's wake-up time. The counters are queue_counts' sharded rows (see
 * ./queues.ts): only a queue's sum means anything.
 */
import type { AsyncPart } from '../statements';
import type { UpkeepSql } from '../statements/upkeep';
import type { JobState } from '../../../shared/protocol/types';
import { jobState } from '../mappers';
import { int, intOrNull, real, text } from '../rows';
import type { PgTx } from './db';
import { allCounts } from './queues';
import { finishedSince } from './runs';
import { BUCKET_MS } from '../statements/runs';

const FINISHED: readonly JobState[] = ['completed', 'dead', 'cancelled'];

/**
 * A job that has not ended depends on `jobs.id`: retention keeps such a job, whose result that
 * job is still to be handed (a workflow broken by its own retention is what Oban #722 reported).
 */
/** The job's workflow run, while it is running: its jobs are kept until it ends. */
const RUNNING_RUN = `SELECT 1 FROM workflow_runs r WHERE r.id = jobs.workflow_run_id AND r.state = 'running'`;
const UNFINISHED_DEPENDENT = `SELECT 1 FROM job_dependencies d JOIN jobs c ON c.id = d.job_id
  WHERE d.depends_on_id = jobs.id AND c.state NOT IN ('completed', 'dead', 'cancelled')`;

export const upkeepStatements: AsyncPart<PgTx, UpkeepSql> = {
  statsFinishedSince(tx, p) {
    return finishedSince(tx, p.now, p.windowMs);
  },

  async statsPrune(tx, olderThan) {
    await tx.run('DELETE FROM stat_buckets WHERE bucket < $1', [Math.floor(olderThan / BUCKET_MS)]);
  },

  counterAll(tx) {
    return allCounts(tx);
  },

  async counterRecount(tx) {
    return (await tx.rows('SELECT queue, state, count(*) AS count FROM jobs GROUP BY queue, state')).map((row) => ({
      queue: text(row, 'queue'),
      state: jobState(row),
      count: int(row, 'count'),
    }));
  },

  /**
   * Each finished state's oldest jobs in turn, until the batch is full. The jobs_list index gives
   * them in id (creation) order, and `id < beforeId` bounds the walk: a job that finished before
   * the cutoff was created before it too, so a batch that finds few expired jobs does not read
   * every job still inside the retention window. Rows another transaction holds are skipped (a
   * retry or delete of that job is under way). The batch is a materialized CTE: as a plain
   * `IN (subquery)` the planner may run the LIMIT more than once (each run skipping other
   * locked rows) and delete more than `limit`.
   */
  async jobDeleteExpired(tx, p) {
    let deleted = 0;
    for (const state of FINISHED) {
      if (deleted >= p.limit) break;
      deleted += await tx.run(
        `WITH batch AS MATERIALIZED (
           SELECT id FROM jobs WHERE queue = $1 AND state = $2 AND state <> 'running' AND id < $3 AND finished_at < $4
             AND (dependents = 0 OR NOT EXISTS (${UNFINISHED_DEPENDENT}))
             AND (workflow_run_id IS NULL OR NOT EXISTS (${RUNNING_RUN}))
           ORDER BY id LIMIT $5 FOR UPDATE SKIP LOCKED)
         DELETE FROM jobs j USING batch WHERE j.id = batch.id`,
        [p.queue, state, p.beforeId, p.cutoff, p.limit - deleted],
      );
    }
    return deleted;
  },

  /**
   * One statement: per queue that is not paused, the first entry of jobs_due (a lateral walk of
   * that queue's index range), the first lease to expire (jobs_lease) and the next schedule.
   */
  async wakeDueAt(tx, now) {
    const row = await tx.row(
      `SELECT least(
         (SELECT min(d.next) FROM queues q CROSS JOIN LATERAL (
            SELECT min(run_at) AS next FROM jobs
            WHERE queue = q.name AND state IN ('queued', 'retrying') AND run_at > created_at AND run_at > $1) d
          WHERE q.paused = 0),
         (SELECT min(lease_expires_at) FROM jobs WHERE state = 'running' AND paused_at IS NULL),
         (SELECT min(next_run_at) FROM schedules WHERE enabled = 1)) AS next`,
      [now],
    );
    return row === undefined ? null : intOrNull(row, 'next');
  },

  async wakeRateLimited(tx) {
    const rows = await tx.rows(
      `SELECT q.name, q.rate_per_second, q.rate_burst, q.rate_tokens, q.rate_refilled_at FROM queues q
       WHERE q.paused = 0 AND q.rate_per_second IS NOT NULL
         AND EXISTS (SELECT 1 FROM jobs WHERE queue = q.name AND state IN ('queued', 'retrying'))`,
    );
    return rows.map((row) => ({
      name: text(row, 'name'),
      rateLimit: { perSecond: real(row, 'rate_per_second'), burst: intOrNull(row, 'rate_burst') ?? 1 },
      bucket: { tokens: row.get('rate_tokens') === null ? null : real(row, 'rate_tokens'), refilledAt: intOrNull(row, 'rate_refilled_at') },
    }));
  },

  async scheduleFiresPrune(tx, p) {
    await tx.run('DELETE FROM schedule_fires WHERE (schedule, fire_at) IN (SELECT schedule, fire_at FROM schedule_fires WHERE fire_at < $1 LIMIT $2)', [
      p.olderThan,
      p.limit,
    ]);
  },
};
