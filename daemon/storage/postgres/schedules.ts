/**
 * Statements over schedules (../statements/schedules.ts), in PostgreSQL. Besides the schedules
 * themselves the store keeps schedule_fires, one row per (schedule, fire time), the backstop that
 * makes a tick fire once across daemons (see fireSchedule in daemon/engine/ops/schedules.ts).
 */
import type { AsyncPart } from '../statements';
import type { ScheduleSql, ScheduleWrite } from '../statements/schedules';
import { mapStoredSchedule } from '../mappers';
import type { PgTx } from './db';

/** The owner comes with the row (a join on a primary key): every reader of a schedule sees it. */
export const SCHEDULE_SELECT = `SELECT s.*, m.project AS owner FROM schedules s
  LEFT JOIN managed_objects m ON m.type = 'schedule' AND m.name = s.name`;

function values(w: ScheduleWrite): unknown[] {
  return [w.name, w.cron, w.timezone, w.queue, w.job, w.enabled, w.missedPolicy, w.nextRunAt, w.now, w.overlapPolicy, w.template, w.params, w.workflow];
}

export const scheduleStatements: AsyncPart<PgTx, ScheduleSql> = {
  async scheduleGet(tx, name) {
    const row = await tx.row(`${SCHEDULE_SELECT} WHERE s.name = $1`, [name]);
    return row === undefined ? undefined : mapStoredSchedule(row);
  },

  /** Only the schedule's row is locked: the owner's side of the outer join cannot be. */
  async scheduleGetForUpdate(tx, name) {
    const row = await tx.row(`${SCHEDULE_SELECT} WHERE s.name = $1 FOR UPDATE OF s`, [name]);
    return row === undefined ? undefined : mapStoredSchedule(row);
  },

  async scheduleList(tx) {
    return (await tx.rows(`${SCHEDULE_SELECT} ORDER BY s.name`)).map(mapStoredSchedule);
  },

  async scheduleInsert(tx, w) {
    const inserted = await tx.run(
      `INSERT INTO schedules (name, cron, timezone, queue, job, enabled, missed_policy, next_run_at, created_at, updated_at,
         overlap_policy, template, params, workflow)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12, $13)
       ON CONFLICT (name) DO NOTHING`,
      values(w),
    );
    return inserted > 0;
  },

  async scheduleUpdate(tx, w) {
    await tx.run(
      `UPDATE schedules SET cron = $2, timezone = $3, queue = $4, job = $5, enabled = $6, missed_policy = $7, next_run_at = $8,
         updated_at = $9, overlap_policy = $10, template = $11, params = $12, workflow = $13
       WHERE name = $1`,
      values(w),
    );
  },

  /** Its fire records go too: a schedule made again under the name starts afresh. */
  async scheduleDelete(tx, name) {
    const deleted = await tx.run('DELETE FROM schedules WHERE name = $1', [name]);
    await tx.run('DELETE FROM schedule_fires WHERE schedule = $1', [name]);
    return deleted > 0;
  },

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

  async scheduleSetLastRun(tx, p) {
    await tx.run('UPDATE schedules SET last_run_id = $2 WHERE name = $1', [p.name, p.runId]);
  },
};
