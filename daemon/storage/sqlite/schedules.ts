/**
 * SQL over schedules (../statements/schedules.ts). Fire times are computed by the daemon's scheduler (shared/domain/cron); the
 * store keeps them and does the compare-and-swap on next_run_at that makes a fire happen once
 * even with two daemons on one file.
 */
import type { ScheduleSql, ScheduleSwap, ScheduleWrite, StoredSchedule } from '../statements/schedules';
import type { UpkeepSql } from '../statements/upkeep';
import type { Db } from './db';
import { mapStoredSchedule } from '../mappers';
import { toRow } from './row';

const SELECT = `SELECT s.*, m.project AS owner FROM schedules s
  LEFT JOIN managed_objects m ON m.type = 'schedule' AND m.name = s.name`;

export class ScheduleStatements implements ScheduleSql, Pick<UpkeepSql, 'scheduleFiresPrune'> {
  private readonly byNameStmt;
  private readonly allStmt;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly casStmt;
  private readonly setLastJobStmt;
  private readonly setLastRunStmt;

  constructor(db: Db) {
    // The owner comes with the row (a join on a primary key): every reader of a schedule sees it.
    this.byNameStmt = db.prepare(`${SELECT} WHERE s.name = @name`);
    this.allStmt = db.prepare(`${SELECT} ORDER BY s.name`);
    this.insertStmt = db.prepare(`
      INSERT INTO schedules (name, cron, timezone, queue, job, enabled, missed_policy, next_run_at, created_at, updated_at,
        overlap_policy, template, params, workflow)
      VALUES (@name, @cron, @timezone, @queue, @job, @enabled, @missedPolicy, @nextRunAt, @now, @now,
        @overlapPolicy, @template, @params, @workflow)
      ON CONFLICT (name) DO NOTHING`);
    this.updateStmt = db.prepare(`
      UPDATE schedules SET cron = @cron, timezone = @timezone, queue = @queue, job = @job, enabled = @enabled,
        missed_policy = @missedPolicy, next_run_at = @nextRunAt, updated_at = @now,
        overlap_policy = @overlapPolicy, template = @template, params = @params, workflow = @workflow
      WHERE name = @name`);
    this.deleteStmt = db.prepare('DELETE FROM schedules WHERE name = @name');
    this.casStmt = db.prepare(`
      UPDATE schedules SET next_run_at = @newNextRunAt, updated_at = @now,
        last_run_at = CASE WHEN @enqueue = 1 THEN @now ELSE last_run_at END
      WHERE name = @name AND next_run_at IS @expectedNextRunAt`);
    this.setLastJobStmt = db.prepare('UPDATE schedules SET last_job_id = @jobId WHERE name = @name');
    this.setLastRunStmt = db.prepare('UPDATE schedules SET last_run_id = @runId WHERE name = @name');
  }

  scheduleGet(name: string): StoredSchedule | undefined {
    const raw = this.byNameStmt.get({ name });
    return raw === undefined ? undefined : mapStoredSchedule(toRow(raw, 'schedule'));
  }

  /** Unlike PostgreSQL, SQLite needs no row lock: BEGIN IMMEDIATE holds the write lock for the whole transaction. */
  scheduleGetForUpdate(name: string): StoredSchedule | undefined {
    return this.scheduleGet(name);
  }

  scheduleList(): StoredSchedule[] {
    return this.allStmt.all().map((raw) => mapStoredSchedule(toRow(raw, 'schedule')));
  }

  scheduleInsert(values: ScheduleWrite): boolean {
    return this.insertStmt.run(values).changes > 0;
  }

  scheduleUpdate(values: ScheduleWrite): void {
    this.updateStmt.run(values);
  }

  /** Unlike PostgreSQL, SQLite keeps no fire records (schedule_fires): its compare-and-swap alone makes a fire happen once. */
  scheduleDelete(name: string): boolean {
    return this.deleteStmt.run({ name }).changes > 0;
  }

  /** Unlike PostgreSQL, SQLite keeps no fire records: its compare-and-swap alone makes a fire happen once. */
  scheduleFiresPrune(): void {}

  /**
   * last_run_at is the last time a tick enqueued a job, so it moves only when `enqueue` is true:
   * a skipped tick or a move of next_run_at alone leaves it. Unlike PostgreSQL, where it moves
   * once the fire is recorded (scheduleRecordFire), it moves here with the swap.
   */
  scheduleSwapNextRun(p: ScheduleSwap): boolean {
    return this.casStmt.run({ ...p, enqueue: p.enqueue ? 1 : 0 }).changes > 0;
  }

  /**
   * Unlike PostgreSQL, SQLite keeps no record of fires: its daemons share one machine and take
   * turns at the file's write lock, and the swap is the guard (last_run_at moved with it).
   */
  scheduleRecordFire(_p: { name: string; fireAt: number; now: number }): boolean {
    return true;
  }

  /** Unlike PostgreSQL, there is no fire record to complete (see scheduleRecordFire). */
  scheduleFireSetJob(_p: { name: string; fireAt: number; jobId: string }): void {}

  scheduleSetLastJob(p: { name: string; jobId: string }): void {
    this.setLastJobStmt.run(p);
  }

  scheduleSetLastRun(p: { name: string; runId: string }): void {
    this.setLastRunStmt.run(p);
  }
}
