/**
 * A schedule's fire and trigger, written once for every store: both enqueue the schedule's job.
 *
 * A tick fires once, whatever the number of daemons on the store, by the compare-and-swap on
 * next_run_at inside the fire's transaction: the swap only matches while next_run_at is still the
 * value the scheduler read, so of two daemons (or two ticks) one swaps and the other finds
 * nothing to do. PostgreSQL adds a record per (schedule, fire time) as a backstop (see
 * scheduleRecordFire).
 */
import type { EnqueueResult } from '../../../shared/protocol';
import { TERMINAL_STATES, type Job, type Schedule } from '../../../shared/types';
import { jsonText } from '../../../shared/domain/validate';
import type { FireScheduleParams } from '../../storage/backend';
import { scheduleNotFound } from '../../storage/errors';
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';
import { enqueue } from './enqueue';

function* requireSchedule(name: string): Op<Schedule> {
  const schedule = yield* sql('scheduleGet', name);
  if (!schedule) throw scheduleNotFound(name);
  return schedule;
}

/** Enqueues the schedule's job as its template says, and remembers it as the schedule's last. */
function* enqueueFrom(c: OpContext, schedule: Schedule): Op<EnqueueResult> {
  const t = schedule.job;
  const result = yield* enqueue(c, {
    queue: schedule.queue,
    kind: t.kind,
    payload: jsonText(t.payload === undefined ? null : t.payload, `schedule ${schedule.name} job.payload`),
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
  yield* sql('scheduleSetLastJob', { name: schedule.name, jobId: result.job.id });
  return result;
}

/**
 * A schedule whose overlap policy is `skip` enqueues nothing while the job it enqueued last is
 * unfinished (queued, retrying or running); the tick still moves next_run_at on. The job is read
 * locked in the fire's own transaction, so it cannot finish or start between the check and the
 * commit.
 */
function* overlapSkips(schedule: Schedule): Op<boolean> {
  if (schedule.overlapPolicy !== 'skip' || schedule.lastJobId === null) return false;
  const last = yield* sql('jobGetForUpdate', schedule.lastJobId);
  return last !== undefined && !TERMINAL_STATES.includes(last.state);
}

/** A tick: the compare-and-swap and the enqueue, in one transaction. Null if another daemon won. Rejects with ScheduleNotFound. */
export function* fireSchedule(c: OpContext, params: FireScheduleParams): Op<{ schedule: Schedule; job: Job | null } | null> {
  const now = c.now();
  if (!(yield* sql('scheduleSwapNextRun', { ...params, now }))) {
    // Another daemon won (or the schedule changed): nothing to do. A schedule that is gone is an error.
    yield* requireSchedule(params.name);
    return null;
  }
  if (!params.enqueue) return { schedule: yield* requireSchedule(params.name), job: null };
  // One fire per (schedule, fire time), whatever the swap believed. When it was fired already,
  // next_run_at still moves on (else the tick would stay due), and nothing else.
  if (!(yield* sql('scheduleRecordFire', { name: params.name, fireAt: params.expectedNextRunAt, now }))) return null;
  const schedule = yield* requireSchedule(params.name);
  if (yield* overlapSkips(schedule)) return { schedule, job: null };
  const { job } = yield* enqueueFrom(c, schedule);
  yield* sql('scheduleFireSetJob', { name: params.name, fireAt: params.expectedNextRunAt, jobId: job.id });
  return { schedule: yield* requireSchedule(params.name), job };
}

/** Enqueues the schedule's job now without moving its next run time. Rejects with ScheduleNotFound. */
export function* triggerSchedule(c: OpContext, name: string): Op<EnqueueResult> {
  return yield* enqueueFrom(c, yield* requireSchedule(name));
}
