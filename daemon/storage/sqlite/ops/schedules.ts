/**
 * Schedules: the fire — a compare-and-swap on next_run_at plus the enqueue, in one
 * transaction, so that of two daemons on one file exactly one fires each tick.
 */
import type { EnqueueResult } from '../../../../shared/protocol';
import { TERMINAL_STATES, type Job, type Schedule } from '../../../../shared/types';
import type { FireScheduleParams } from '../../backend';
import { scheduleNotFound } from '../../../engine/errors';
import type { SqliteContext } from './context';
import { enqueueOne } from './enqueue';

function getSchedule(ctx: SqliteContext, name: string): Schedule {
  const schedule = ctx.store.schedules.get(name);
  if (!schedule) throw scheduleNotFound(name);
  return schedule;
}

function enqueueFrom(ctx: SqliteContext, schedule: Schedule): EnqueueResult {
  const t = schedule.job;
  const result = enqueueOne(ctx, {
    queue: schedule.queue,
    kind: t.kind,
    payload: ctx.policy.payloadText(t.payload === undefined ? null : t.payload, `schedule ${schedule.name} job.payload`),
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
  ctx.store.schedules.setLastJob(schedule.name, result.job.id);
  return result;
}

/**
 * A schedule whose overlap policy is `skip` enqueues nothing while the job it enqueued last is
 * unfinished (queued, retrying or running); the tick still moves next_run_at on. Read in the
 * fire's own transaction, so the job cannot finish or start between the check and the enqueue.
 */
function overlapSkips(ctx: SqliteContext, schedule: Schedule): boolean {
  if (schedule.overlapPolicy !== 'skip' || schedule.lastJobId === null) return false;
  const last = ctx.store.jobs.byId(schedule.lastJobId);
  return last !== undefined && !TERMINAL_STATES.includes(last.state);
}

export function fireSchedule(ctx: SqliteContext, params: FireScheduleParams): { schedule: Schedule; job: Job | null } | null {
  const schedule = getSchedule(ctx, params.name);
  const swapped = ctx.store.schedules.compareAndSwap({
    name: params.name,
    expectedNextRunAt: params.expectedNextRunAt,
    newNextRunAt: params.newNextRunAt,
    enqueue: params.enqueue,
    now: ctx.now(),
  });
  if (!swapped) return null;
  const job = params.enqueue && !overlapSkips(ctx, schedule) ? enqueueFrom(ctx, schedule).job : null;
  return { schedule: getSchedule(ctx, params.name), job };
}

export function triggerSchedule(ctx: SqliteContext, name: string): EnqueueResult {
  return enqueueFrom(ctx, getSchedule(ctx, name));
}
