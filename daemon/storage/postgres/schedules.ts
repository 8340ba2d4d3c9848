/**
 * Statements over schedules (../statements/schedules.ts), in PostgreSQL. A tick fires once
 * across every daemon on the database by two guards in one transaction:
 * - the compare-and-swap on next_run_at: the UPDATE only matches while next_run_at is still
 *   the value the scheduler read; a second daemon's UPDATE waits for the first's row lock and,
 *   once that commits, re-reads the row, no longer matches, and fires nothing;
 * - the unique (schedule, fire time) of schedule_fires: a daemon whose reading is stale in a way
 *   the swap cannot see (next_run_at put back to a time already fired, by a late writer or a
 *   leader that lost its lease behind a pooler) finds the fire recorded and enqueues nothing.
 */
import type { AsyncPart } from '../statements';
import type { ScheduleSql } from '../statements/schedules';
import type { PgTx } from './db';
import { findSchedule } from './ops/schedules';

export const scheduleStatements: AsyncPart<PgTx, ScheduleSql> = {
  scheduleGet: findSchedule,

  /** Unlike SQLite's, the swap leaves last_run_at: it moves once the fire is recorded (scheduleRecordFire). */
  async scheduleSwapNextRun(tx, p) {
    const swapped = await tx.row('UPDATE schedules SET next_run_at = $3, updated_at = $4 WHERE name = $1 AND next_run_at = $2 RETURNING name', [
      p.name,
      p.expectedNextRunAt,
      p.newNextRunAt,
      p.now,
    ]);
    return swapped !== undefined;
  },

  /**
   * The backstop: one fire per (schedule, fire time), whatever the swap believed. last_run_at is
   * the last time a tick enqueued a job (or would have, but for the overlap policy): it moves
   * with the record, in the same statement, and a fire recorded already leaves it.
   */
  async scheduleRecordFire(tx, p) {
    const recorded = await tx.row(
      `WITH fire AS (INSERT INTO schedule_fires (schedule, fire_at) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING schedule)
       UPDATE schedules SET last_run_at = $3 FROM fire WHERE schedules.name = fire.schedule RETURNING schedules.name`,
      [p.name, p.fireAt, p.now],
    );
    return recorded !== undefined;
  },

  async scheduleFireSetJob(tx, p) {
    await tx.run('UPDATE schedule_fires SET job_id = $3 WHERE schedule = $1 AND fire_at = $2', [p.name, p.fireAt, p.jobId]);
  },

  async scheduleSetLastJob(tx, p) {
    await tx.run('UPDATE schedules SET last_job_id = $2 WHERE name = $1', [p.name, p.jobId]);
  },
};
