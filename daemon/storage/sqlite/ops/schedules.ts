/**
 * Schedules: storage, and the fire — a compare-and-swap on next_run_at plus the enqueue, in one
 * transaction, so that of two daemons on one file exactly one fires each tick.
 */
import { SpoolError } from '../../../../shared/errors';
import { ErrorCode, type EnqueueResult } from '../../../../shared/protocol';
import { TERMINAL_STATES, type Job, type JobTemplate, type Schedule } from '../../../../shared/types';
import type { FireScheduleParams } from '../../backend';
import { scheduleNotFound } from '../../../engine/errors';
import type { SqliteContext } from './context';
import type { ScheduleChanges, ScheduleInput } from '../../../engine/validate/schedules';
import { enqueueOne } from './enqueue';

export function getSchedule(ctx: SqliteContext, name: string): Schedule {
  const schedule = ctx.store.schedules.get(name);
  if (!schedule) throw scheduleNotFound(name);
  return schedule;
}

/**
 * Refuses a template whose backoff, completed from its queue's defaults as it is now (or the
 * defaults of a queue yet to be created), has its cap below its base.
 */
function checkTemplateBackoff(ctx: SqliteContext, queue: string, template: JobTemplate): void {
  if (template.backoff === undefined) return;
  const defaults = ctx.store.queues.get(queue)?.defaultBackoff ?? ctx.policy.queueDefaults.backoff;
  ctx.policy.mergeBackoff(defaults, template.backoff, 'job.backoff');
}

export function createSchedule(ctx: SqliteContext, input: ScheduleInput, nextRunAt: number | null): Schedule {
  checkTemplateBackoff(ctx, input.queue, input.job);
  const inserted = ctx.store.schedules.insert({
    name: input.name,
    cron: input.cron,
    timezone: input.timezone,
    queue: input.queue,
    job: JSON.stringify(input.job),
    enabled: input.enabled ? 1 : 0,
    missedPolicy: input.missedPolicy,
    nextRunAt: input.enabled ? nextRunAt : null,
    now: ctx.now(),
    overlapPolicy: 'allow',
    template: null,
    params: null,
  });
  if (!inserted) {
    throw new SpoolError(ErrorCode.AlreadyExists, `A schedule named "${input.name}" exists already. Change it with schedules.update (from the command line: spool schedule set ${input.name} …), or remove it first (spool schedule rm ${input.name}).`, { schedule: input.name });
  }
  return getSchedule(ctx, input.name);
}

/** `nextRunAt` undefined keeps the stored one (the caller recomputes it when cron, zone or enabled change). */
export function updateSchedule(ctx: SqliteContext, changes: ScheduleChanges, nextRunAt: number | null | undefined): Schedule {
  const current = getSchedule(ctx, changes.name);
  if (changes.job !== undefined) checkTemplateBackoff(ctx, changes.queue ?? current.queue, changes.job);
  const enabled = changes.enabled ?? current.enabled;
  ctx.store.schedules.update({
    name: current.name,
    cron: changes.cron ?? current.cron,
    timezone: changes.timezone ?? current.timezone,
    queue: changes.queue ?? current.queue,
    job: JSON.stringify(changes.job ?? current.job),
    enabled: enabled ? 1 : 0,
    missedPolicy: changes.missedPolicy ?? current.missedPolicy,
    nextRunAt: !enabled ? null : nextRunAt === undefined ? current.nextRunAt : nextRunAt,
    now: ctx.now(),
    // A change by hand keeps what apply recorded: plan then reports it as drift.
    overlapPolicy: current.overlapPolicy ?? 'allow',
    template: current.template ?? null,
    params: current.params === undefined ? null : JSON.stringify(current.params),
  });
  return getSchedule(ctx, current.name);
}

export function deleteSchedule(ctx: SqliteContext, name: string): void {
  if (!ctx.store.schedules.delete(name)) throw scheduleNotFound(name);
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
