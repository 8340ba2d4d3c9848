/**
 * Schedules, written once for every store.
 *
 * A store keeps a schedule's job template as JSON text and gives it back as text: it is parsed
 * here, with the same validation a new template gets, rather than trusted.
 */
import { SpoolError } from '../../../shared/errors';
import { ErrorCode } from '../../../shared/protocol';
import type { JobTemplate, Schedule } from '../../../shared/types';
import { scheduleNotFound } from '../../storage/errors';
import { sql, type Op } from '../../storage/statements';
import type { StoredSchedule } from '../../storage/statements/schedules';
import { mergedBackoff } from '../validate/jobs';
import { jobTemplate, type ScheduleChanges, type ScheduleInput } from '../validate/schedules';
import type { OpContext } from './context';

// ------------------------------------------------------------------------------------------
// Reading and changing schedules

/** A stored template was validated when written; parsing it checks it again rather than trusting the store. */
export function parseSchedule(stored: StoredSchedule): Schedule {
  return { ...stored, job: jobTemplate(JSON.parse(stored.job), `schedule ${stored.name} job`) };
}

/** Every schedule. */
export function* listSchedules(): Op<Schedule[]> {
  return (yield* sql('scheduleList')).map(parseSchedule);
}

/** One schedule. Rejects with ScheduleNotFound. */
export function* getSchedule(name: string): Op<Schedule> {
  const stored = yield* sql('scheduleGet', name);
  if (!stored) throw scheduleNotFound(name);
  return parseSchedule(stored);
}

/**
 * Refuses a template whose backoff, completed from its queue's defaults as they are now (or the
 * defaults of a queue yet to be created), has its cap below its base.
 */
function* checkTemplateBackoff(c: OpContext, queue: string, template: JobTemplate): Op<void> {
  if (template.backoff === undefined) return;
  const defaults = (yield* sql('queueGet', queue))?.defaultBackoff ?? c.policy.queueDefaults.backoff;
  mergedBackoff(defaults, template.backoff, 'job.backoff');
}

/** Creates a schedule with its first fire time. Rejects with AlreadyExists. */
export function* createSchedule(c: OpContext, input: ScheduleInput, nextRunAt: number | null): Op<Schedule> {
  yield* checkTemplateBackoff(c, input.queue, input.job);
  const inserted = yield* sql('scheduleInsert', {
    name: input.name,
    cron: input.cron,
    timezone: input.timezone,
    queue: input.queue,
    job: JSON.stringify(input.job),
    enabled: input.enabled ? 1 : 0,
    missedPolicy: input.missedPolicy,
    nextRunAt: input.enabled ? nextRunAt : null,
    now: c.now(),
    overlapPolicy: 'allow',
    template: null,
    params: null,
  });
  if (!inserted) {
    throw new SpoolError(ErrorCode.AlreadyExists, `A schedule named "${input.name}" exists already. Change it with schedules.update (from the command line: spool schedule set ${input.name} …), or remove it first (spool schedule rm ${input.name}).`, { schedule: input.name });
  }
  return yield* getSchedule(input.name);
}

/**
 * Changes a schedule; `nextRunAt` undefined keeps the stored one (the caller recomputes it when
 * cron, zone or enabled change). Rejects with ScheduleNotFound.
 */
export function* updateSchedule(c: OpContext, changes: ScheduleChanges, nextRunAt: number | null | undefined): Op<Schedule> {
  // Locked: a tick of another daemon waits, and its swap then compares with what this writes.
  const stored = yield* sql('scheduleGetForUpdate', changes.name);
  if (!stored) throw scheduleNotFound(changes.name);
  const current = parseSchedule(stored);
  if (changes.job !== undefined) yield* checkTemplateBackoff(c, changes.queue ?? current.queue, changes.job);
  const enabled = changes.enabled ?? current.enabled;
  yield* sql('scheduleUpdate', {
    name: current.name,
    cron: changes.cron ?? current.cron,
    timezone: changes.timezone ?? current.timezone,
    queue: changes.queue ?? current.queue,
    job: JSON.stringify(changes.job ?? current.job),
    enabled: enabled ? 1 : 0,
    missedPolicy: changes.missedPolicy ?? current.missedPolicy,
    nextRunAt: !enabled ? null : nextRunAt === undefined ? current.nextRunAt : nextRunAt,
    now: c.now(),
    // A change by hand keeps what apply recorded: plan then reports it as drift.
    overlapPolicy: current.overlapPolicy ?? 'allow',
    template: current.template ?? null,
    params: current.params === undefined ? null : JSON.stringify(current.params),
  });
  return yield* getSchedule(current.name);
}

/** Deletes a schedule. Rejects with ScheduleNotFound. */
export function* deleteSchedule(name: string): Op<void> {
  if (!(yield* sql('scheduleDelete', name))) throw scheduleNotFound(name);
}
