/**
 * Schedules: reading, creating, changing and deleting them (a tick's fire and a trigger are
 * daemon/engine/ops/schedules.ts).
 */
import { SpoolError } from '../../../../shared/errors';
import { ErrorCode } from '../../../../shared/protocol';
import type { JobTemplate, Schedule } from '../../../../shared/types';
import { scheduleNotFound } from '../../errors';
import type { SqliteContext } from './context';
import type { ScheduleChanges, ScheduleInput } from '../../../engine/validate/schedules';

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
