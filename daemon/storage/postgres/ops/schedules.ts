/**
 * Schedules: reading, creating, changing and deleting them (a tick's fire and a trigger are
 * daemon/engine/ops/schedules.ts, over ../schedules.ts).
 */
import { SpoolError } from '../../../../shared/errors';
import { ErrorCode } from '../../../../shared/protocol';
import type { JobTemplate, Schedule } from '../../../../shared/types';
import type { ScheduleChanges, ScheduleInput } from '../../../engine/validate/schedules';
import { scheduleNotFound } from '../../errors';
import { mapSchedule } from '../../mappers';
import { text, type Row } from '../../rows';
import type { PgTx } from '../db';
import type { ScheduleWrite } from '../../mappers';
import { queueSettings } from './common';

/** The owner comes with the row (a join on a primary key): every reader of a schedule sees it. */
const SELECT = `SELECT s.*, m.project AS owner FROM schedules s
  LEFT JOIN managed_objects m ON m.type = 'schedule' AND m.name = s.name`;

export function mapScheduleRow(tx: PgTx, row: Row): Schedule {
  return mapSchedule(row, tx.policy.parseTemplate(text(row, 'job'), text(row, 'name')));
}

export async function findSchedule(tx: PgTx, name: string): Promise<Schedule | undefined> {
  const row = await tx.row(`${SELECT} WHERE s.name = $1`, [name]);
  return row === undefined ? undefined : mapScheduleRow(tx, row);
}

export async function listSchedules(tx: PgTx): Promise<Schedule[]> {
  return (await tx.rows(`${SELECT} ORDER BY s.name`)).map((row) => mapScheduleRow(tx, row));
}

export async function getSchedule(tx: PgTx, name: string): Promise<Schedule> {
  const schedule = await findSchedule(tx, name);
  if (!schedule) throw scheduleNotFound(name);
  return schedule;
}

/**
 * Refuses a template whose backoff, completed from its queue's defaults as they are now (or the
 * defaults of a queue yet to be created), has its cap below its base.
 */
async function checkTemplateBackoff(tx: PgTx, queue: string, template: JobTemplate): Promise<void> {
  if (template.backoff === undefined) return;
  const defaults = (await queueSettings(tx, queue))?.defaultBackoff ?? tx.policy.queueDefaults.backoff;
  tx.policy.mergeBackoff(defaults, template.backoff, 'job.backoff');
}

function values(w: ScheduleWrite): unknown[] {
  return [w.name, w.cron, w.timezone, w.queue, w.job, w.enabled, w.missedPolicy, w.nextRunAt, w.now, w.overlapPolicy, w.template, w.params];
}

/** False when a schedule with that name exists. */
export async function insertSchedule(tx: PgTx, w: ScheduleWrite): Promise<boolean> {
  const inserted = await tx.run(
    `INSERT INTO schedules (name, cron, timezone, queue, job, enabled, missed_policy, next_run_at, created_at, updated_at,
       overlap_policy, template, params)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12)
     ON CONFLICT (name) DO NOTHING`,
    values(w),
  );
  return inserted > 0;
}

export async function writeSchedule(tx: PgTx, w: ScheduleWrite): Promise<void> {
  await tx.run(
    `UPDATE schedules SET cron = $2, timezone = $3, queue = $4, job = $5, enabled = $6, missed_policy = $7, next_run_at = $8,
       updated_at = $9, overlap_policy = $10, template = $11, params = $12
     WHERE name = $1`,
    values(w),
  );
}

/** Deletes the schedule and its fire records (a schedule made again under the name starts afresh); false if there was none. */
export async function removeSchedule(tx: PgTx, name: string): Promise<boolean> {
  const deleted = await tx.run('DELETE FROM schedules WHERE name = $1', [name]);
  await tx.run('DELETE FROM schedule_fires WHERE schedule = $1', [name]);
  return deleted > 0;
}

export async function createSchedule(tx: PgTx, input: ScheduleInput, nextRunAt: number | null): Promise<Schedule> {
  await checkTemplateBackoff(tx, input.queue, input.job);
  const inserted = await insertSchedule(tx, {
    name: input.name,
    cron: input.cron,
    timezone: input.timezone,
    queue: input.queue,
    job: JSON.stringify(input.job),
    enabled: input.enabled ? 1 : 0,
    missedPolicy: input.missedPolicy,
    nextRunAt: input.enabled ? nextRunAt : null,
    now: tx.now(),
    overlapPolicy: 'allow',
    template: null,
    params: null,
  });
  if (!inserted) {
    throw new SpoolError(ErrorCode.AlreadyExists, `A schedule named "${input.name}" exists already. Change it with schedules.update (from the command line: spool schedule set ${input.name} …), or remove it first (spool schedule rm ${input.name}).`, { schedule: input.name });
  }
  return getSchedule(tx, input.name);
}

/** `nextRunAt` undefined keeps the stored one (the caller recomputes it when cron, zone or enabled change). */
export async function updateSchedule(tx: PgTx, changes: ScheduleChanges, nextRunAt: number | null | undefined): Promise<Schedule> {
  // Locked: a tick of another daemon waits, and its swap then compares with what this writes.
  await tx.run('SELECT 1 FROM schedules WHERE name = $1 FOR UPDATE', [changes.name]);
  const current = await getSchedule(tx, changes.name);
  if (changes.job !== undefined) await checkTemplateBackoff(tx, changes.queue ?? current.queue, changes.job);
  const enabled = changes.enabled ?? current.enabled;
  await writeSchedule(tx, {
    name: current.name,
    cron: changes.cron ?? current.cron,
    timezone: changes.timezone ?? current.timezone,
    queue: changes.queue ?? current.queue,
    job: JSON.stringify(changes.job ?? current.job),
    enabled: enabled ? 1 : 0,
    missedPolicy: changes.missedPolicy ?? current.missedPolicy,
    nextRunAt: !enabled ? null : nextRunAt === undefined ? current.nextRunAt : nextRunAt,
    now: tx.now(),
    // A change by hand keeps what apply recorded: plan then reports it as drift.
    overlapPolicy: current.overlapPolicy ?? 'allow',
    template: current.template ?? null,
    params: current.params === undefined ? null : JSON.stringify(current.params),
  });
  return getSchedule(tx, current.name);
}

export async function deleteSchedule(tx: PgTx, name: string): Promise<void> {
  if (!(await removeSchedule(tx, name))) throw scheduleNotFound(name);
}
