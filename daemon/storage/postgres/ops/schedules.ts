/**
 * Schedules: the tick and trigger (their CRUD is daemon/engine/ops/schedules.ts).
 *
 * A tick fires once across every daemon on the database by two guards in one transaction:
 * - the compare-and-swap on next_run_at: the UPDATE only matches while next_run_at is still
 *   the value the scheduler read; a second daemon's UPDATE waits for the first's row lock and,
 *   once that commits, re-reads the row, no longer matches, and fires nothing;
 * - the unique (schedule, fire time) of schedule_fires: a daemon whose reading is stale in a way
 *   the swap cannot see (next_run_at put back to a time already fired, by a late writer or a
 *   leader that lost its lease behind a pooler) finds the fire recorded and enqueues nothing.
 */
import type { EnqueueResult } from '../../../../shared/protocol';
import { TERMINAL_STATES, type Job, type Schedule } from '../../../../shared/types';
import type { FireScheduleParams } from '../../backend';
import { scheduleNotFound } from '../../../engine/errors';
import { mapSchedule } from '../../mappers';
import { text, type Row } from '../../rows';
import type { PgTx } from '../db';
import { SCHEDULE_SELECT } from '../schedules';
import { enqueueOne, findJob } from './common';

export function mapScheduleRow(tx: PgTx, row: Row): Schedule {
  return mapSchedule(row, tx.policy.parseTemplate(text(row, 'job'), text(row, 'name')));
}

async function getSchedule(tx: PgTx, name: string): Promise<Schedule> {
  const row = await tx.row(`${SCHEDULE_SELECT} WHERE s.name = $1`, [name]);
  if (row === undefined) throw scheduleNotFound(name);
  return mapScheduleRow(tx, row);
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
