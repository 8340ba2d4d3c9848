/**
 * Schedules: CRUD, the tick and trigger.
 *
 * A tick fires once across every daemon on the database by two guards in one transaction:
 * - the compare-and-swap on next_run_at: the UPDATE only matches while next_run_at is still
 *   the value the scheduler read; a second daemon's UPDATE waits for the first's row lock and,
 *   once that commits, re-reads the row, no longer matches, and fires nothing;
 * - the unique (schedule, fire time) of schedule_fires: a daemon whose reading is stale in a way
 *   the swap cannot see (next_run_at put back to a time already fired, by a late writer or a
 *   leader that lost its lease behind a pooler) finds the fire recorded and enqueues nothing.
 */
import { SpoolError } from '../../../../shared/errors';
import { ErrorCode, type EnqueueResult } from '../../../../shared/protocol';
import { TERMINAL_STATES, type Job, type JobTemplate, type Schedule } from '../../../../shared/types';
import type { ScheduleChanges, ScheduleInput } from '../../../engine/validate/schedules';
import type { FireScheduleParams } from '../../backend';
import { scheduleNotFound } from '../../../engine/errors';
import { mapSchedule } from '../../mappers';
import { text, type Row } from '../../rows';
import type { PgTx } from '../db';
import type { ScheduleWrite } from '../../mappers';
import { enqueueOne, findJob, queueSettings } from './common';

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

async function enqueueFrom(tx: PgTx, schedule: Schedule): Promise<EnqueueResult> {
  const t = schedule.job;
  const result = await enqueueOne(tx, {
    queue: schedule.queue,
    kind: t.kind,
    payload: tx.policy.payloadText(t.payload === undefined ? null : t.payload, `schedule ${schedule.name} job.payload`),
    priority: t.priority ?? 0,
    weight: t.weight ?? 1,
    delayMs: undefined,
    runAt: undefined,
    maxAttempts: t.maxAttempts,
    backoff: t.backoff ?? {},
    backoffField: null,
    timeoutMs: t.timeoutMs,
    tags: JSON.stringify(t.tags ?? []),
    idempotencyKey: null,
    context: JSON.stringify({ origin: `schedule:${schedule.name}` }),
  });
  await tx.run('UPDATE schedules SET last_job_id = $2 WHERE name = $1', [schedule.name, result.job.id]);
  return result;
}

/**
 * A schedule whose overlap policy is `skip` enqueues nothing while the job it enqueued last is
 * unfinished (queued, retrying or running); the tick still moves next_run_at on. The job row is
 * locked, so it cannot finish or start between this check and the commit.
 */
async function overlapSkips(tx: PgTx, schedule: Schedule): Promise<boolean> {
  if (schedule.overlapPolicy !== 'skip' || schedule.lastJobId === null) return false;
  const last = await findJob(tx, schedule.lastJobId, true);
  return last !== undefined && !TERMINAL_STATES.includes(last.state);
}

export async function fireSchedule(tx: PgTx, params: FireScheduleParams): Promise<{ schedule: Schedule; job: Job | null } | null> {
  const now = tx.now();
  const swapped = await tx.row(
    'UPDATE schedules SET next_run_at = $3, updated_at = $4 WHERE name = $1 AND next_run_at = $2 RETURNING name',
    [params.name, params.expectedNextRunAt, params.newNextRunAt, now],
  );
  if (swapped === undefined) {
    // Another daemon won (or the schedule changed): nothing to do. A schedule that is gone is an error, as in SQLite.
    await getSchedule(tx, params.name);
    return null;
  }
  if (!params.enqueue) return { schedule: await getSchedule(tx, params.name), job: null };
  // The backstop: one fire per (schedule, fire time), whatever the swap believed. When it was
  // fired already, next_run_at still moves on (else the tick would stay due), and nothing else.
  const recorded = await tx.run('INSERT INTO schedule_fires (schedule, fire_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [params.name, params.expectedNextRunAt]);
  if (recorded === 0) return null;
  // last_run_at is the last time a tick enqueued a job (or would have, but for the overlap policy): a skipped tick leaves it.
  await tx.run('UPDATE schedules SET last_run_at = $2 WHERE name = $1', [params.name, now]);
  const schedule = await getSchedule(tx, params.name);
  if (await overlapSkips(tx, schedule)) return { schedule, job: null };
  const { job } = await enqueueFrom(tx, schedule);
  await tx.run('UPDATE schedule_fires SET job_id = $3 WHERE schedule = $1 AND fire_at = $2', [params.name, params.expectedNextRunAt, job.id]);
  return { schedule: await getSchedule(tx, params.name), job };
}

export async function triggerSchedule(tx: PgTx, name: string): Promise<EnqueueResult> {
  return enqueueFrom(tx, await getSchedule(tx, name));
}
