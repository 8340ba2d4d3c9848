/**
 * Schedules, written once for every store: reading and changing them, and a tick's fire and a
 * trigger, both of which enqueue the schedule's job.
 *
 * A store keeps a schedule's job template as JSON text and gives it back as text: it is parsed
 * here, with the same validation a new template gets, rather than trusted.
 */
import { SpoolError } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';
import { TERMINAL_STATES, type Job, type JobTemplate, type Schedule } from '../../../shared/protocol/types';
import { scheduleNotFound } from '../errors';
import { sql, type Op } from '../../storage/statements';
import type { StoredSchedule } from '../../storage/statements/schedules';
import { mergedBackoff } from '../validate/jobs';
import { jobTemplate, type ScheduleChanges, type ScheduleInput } from '../validate/schedules';
import type { OpContext } from './context';
import type { EnqueueResult, ScheduleTriggerResult, WorkflowRun, WorkflowRunStarted } from '../../../shared/protocol';
import { jsonText } from '../../../shared/domain/validate';
import type { FireScheduleParams } from '../api';
import { enqueue } from './enqueue';
import { startRun } from './workflows';
import { uniqueRuleParams, type UniqueRule } from '../../../shared/domain/rules/unique';

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
    workflow: null,
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
    workflow: current.workflow ?? null,
  });
  return yield* getSchedule(current.name);
}

/** Deletes a schedule. Rejects with ScheduleNotFound. */
export function* deleteSchedule(name: string): Op<void> {
  if (!(yield* sql('scheduleDelete', name))) throw scheduleNotFound(name);
}

// ------------------------------------------------------------------------------------------
// A tick's fire and a trigger
//
// A tick fires once, whatever the number of daemons on the store, by the compare-and-swap on
// next_run_at inside the fire's transaction: the swap only matches while next_run_at is still the
// value the scheduler read, so of two daemons (or two ticks) one swaps and the other finds
// nothing to do. PostgreSQL adds a record per (schedule, fire time) as a backstop (see
// scheduleRecordFire).

/** The unique, debounce or throttle of the schedule's job (checked when the schedule was stored). */
function scheduleUnique(schedule: Schedule): { unique?: UniqueRule } {
  const t = schedule.job;
  const unique = uniqueRuleParams({ unique: t.unique, debounce: t.debounce, throttle: t.throttle }, `schedule ${schedule.name} job`);
  return unique === undefined ? {} : { unique };
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
    dependsOn: [],
    group: t.group ?? null,
    ...(t.retry === undefined ? {} : { retry: t.retry }),
    ...(t.expireAfterMs === undefined ? {} : { expireAfterMs: t.expireAfterMs }),
    ...(t.deadlineMs === undefined ? {} : { deadlineMs: t.deadlineMs }),
    ...scheduleUnique(schedule),
  }, false);
  yield* sql('scheduleSetLastJob', { name: schedule.name, jobId: result.job.id });
  return result;
}

/**
 * Starts a run of the schedule's workflow with the schedule's values, and remembers it as the
 * schedule's last. The run's source is `schedule NAME`.
 */
function* startRunFrom(c: OpContext, schedule: Schedule, workflow: string): Op<WorkflowRunStarted> {
  const started = yield* startRun(c, { workflow, params: schedule.params ?? {}, definition: null }, `schedule ${schedule.name}`);
  yield* sql('scheduleSetLastRun', { name: schedule.name, runId: started.run.id });
  return started;
}

/**
 * A schedule whose overlap policy is `skip` enqueues nothing while the job it enqueued last is
 * unfinished (queued, retrying or running), or, for a schedule that starts a workflow, while the
 * run it started last is running; the tick still moves next_run_at on. The job (or run) is read
 * locked in the fire's own transaction, so it cannot end or start between the check and the
 * commit.
 */
function* overlapSkips(schedule: Schedule): Op<boolean> {
  if (schedule.overlapPolicy !== 'skip') return false;
  if (schedule.workflow !== undefined) {
    if (schedule.lastRunId === undefined || schedule.lastRunId === null) return false;
    const run = yield* sql('workflowRunGetForUpdate', schedule.lastRunId);
    return run !== undefined && run.state === 'running';
  }
  if (schedule.lastJobId === null) return false;
  const last = yield* sql('jobGetForUpdate', schedule.lastJobId);
  return last !== undefined && !TERMINAL_STATES.includes(last.state);
}

/** A tick: the compare-and-swap and the enqueue, in one transaction. Null if another daemon won. Rejects with ScheduleNotFound. */
export function* fireSchedule(c: OpContext, params: FireScheduleParams): Op<{ schedule: Schedule; job: Job | null; run?: WorkflowRun } | null> {
  const now = c.now();
  if (!(yield* sql('scheduleSwapNextRun', { ...params, now }))) {
    // Another daemon won (or the schedule changed): nothing to do. A schedule that is gone is an error.
    yield* getSchedule(params.name);
    return null;
  }
  if (!params.enqueue) return { schedule: yield* getSchedule(params.name), job: null };
  // One fire per (schedule, fire time), whatever the swap believed. When it was fired already,
  // next_run_at still moves on (else the tick would stay due), and nothing else.
  if (!(yield* sql('scheduleRecordFire', { name: params.name, fireAt: params.expectedNextRunAt, now }))) return null;
  const schedule = yield* getSchedule(params.name);
  if (yield* overlapSkips(schedule)) return { schedule, job: null };
  if (schedule.workflow !== undefined) {
    // A workflow deleted since (by an apply that kept the schedule) starts nothing; the tick moves on.
    if (!(yield* sql('workflowGet', schedule.workflow))) return { schedule, job: null };
    const { run } = yield* startRunFrom(c, schedule, schedule.workflow);
    return { schedule: yield* getSchedule(params.name), job: null, run };
  }
  const { job } = yield* enqueueFrom(c, schedule);
  yield* sql('scheduleFireSetJob', { name: params.name, fireAt: params.expectedNextRunAt, jobId: job.id });
  return { schedule: yield* getSchedule(params.name), job };
}

/**
 * Enqueues the schedule's job now without moving its next run time, or starts a run of its
 * workflow (the result then has the run and its first job). Rejects with ScheduleNotFound (and
 * WorkflowNotFound when the workflow is gone).
 */
export function* triggerSchedule(c: OpContext, name: string): Op<ScheduleTriggerResult> {
  const schedule = yield* getSchedule(name);
  if (schedule.workflow === undefined) return yield* enqueueFrom(c, schedule);
  const started = yield* startRunFrom(c, schedule, schedule.workflow);
  const first = started.jobs[0];
  const job = first === undefined ? undefined : yield* sql('jobGet', first.id);
  if (job === undefined) throw new Error(`Workflow run ${started.run.id} has no job`);
  return { job, created: true, run: started.run };
}
