/**
 * Handlers of schedules.*. The engine stores schedules; the daemon owns cron: it validates the
 * expression and time zone (refusing an invalid one with the parser's reason and
 * `data.field = 'cron'`), computes `next_run_at`, and returns the next fire times so the user can
 * check the expression did what they meant. The cron and zone fields are read by the domain's
 * schedule rules (shared/domain/rules/schedules.ts), with the domain's default zone, so the
 * handler and the engine agree on what a schedule without a zone means.
 */
import { invalidParams } from '../../../shared/protocol/errors';
import type { CreateScheduleParams, UpdateScheduleParams } from '../../../shared/protocol';
import type { Schedule } from '../../../shared/protocol/types';
import { DEFAULT_TIMEZONE, nextFireTime, nextFireTimes, validateCron, type CronSpec } from '../../../shared/domain/cron';
import { cron, timezone } from '../../../shared/domain/rules/schedules';
import { unvalidated } from '../unvalidated';
import { isRecord } from '../../../shared/domain/records';
import { nonEmptyString, object } from '../../../shared/domain/validate';
import type { HandlerGroup, Services } from './types';

type ScheduleMethods =
  | 'schedules.list'
  | 'schedules.get'
  | 'schedules.create'
  | 'schedules.update'
  | 'schedules.delete'
  | 'schedules.trigger'
  | 'schedules.enable'
  | 'schedules.disable';

function scheduleName(params: unknown): string {
  return nonEmptyString(object(params, 'params', ['name'])['name'], 'name');
}

/** The cron fields of the params, checked by the domain's rules; absent ones are undefined. */
function cronFields(params: unknown): { cron?: string; timezone?: string } {
  if (!isRecord(params)) return {};
  return {
    cron: params.cron === undefined ? undefined : cron(params.cron),
    timezone: params.timezone === undefined ? undefined : timezone(params.timezone),
  };
}

/**
 * What a new schedule's first tick is computed from: its cron, read in its zone or, when it
 * names none, the domain's default zone (the one the engine stores for it).
 */
export function createdSpec(params: unknown): CronSpec & { timezone: string } {
  const fields = cronFields(params);
  if (fields.cron === undefined) throw invalidParams('cron', 'schedules.create needs "cron", e.g. "*/5 * * * *" (5 fields) or "*/10 * * * * *" (6, seconds first).');
  return { cron: fields.cron, timezone: fields.timezone ?? DEFAULT_TIMEZONE };
}

function withNextRuns(schedule: Schedule): { schedule: Schedule; nextRuns: number[] } {
  let nextRuns: number[] = [];
  try {
    nextRuns = nextFireTimes(schedule, Date.now(), 3);
  } catch (error) {
    // Stored expressions were valid when stored; if one no longer parses (time zone data
    // changed), the schedule itself is still worth returning, and the scheduler logs the error.
    nextRuns = [];
  }
  return { schedule, nextRuns };
}

export function scheduleHandlers(s: Services): HandlerGroup<ScheduleMethods> {
  const { engine } = s;
  const next = (spec: CronSpec): number | null => nextFireTime(spec, Date.now());
  /** After a write: the upkeep timer re-reads the earliest tick, and subscribers hear of `name`. */
  const changed = <T>(name: string, result: T, deleted = false): T => {
    s.upkeep.refresh();
    s.events.scheduleChanged(name, deleted, Date.now());
    return result;
  };
  return {
    'schedules.list': async (params) => {
      object(params, 'params', []);
      return { schedules: await engine.listSchedules() };
    },
    'schedules.get': async (params) => withNextRuns(await engine.getSchedule(scheduleName(params))),
    'schedules.create': async (params) => {
      const spec = createdSpec(params);
      validateCron(spec);
      const created = withNextRuns(await engine.createSchedule(unvalidated<CreateScheduleParams>(params), next(spec)));
      return changed(created.schedule.name, created);
    },
    'schedules.update': async (params) => {
      const fields = cronFields(params);
      const p = unvalidated<UpdateScheduleParams>(params);
      let nextRunAt: number | null | undefined;
      const cronChanged = fields.cron !== undefined || fields.timezone !== undefined;
      const enabling = isRecord(params) && params.enabled === true;
      const keepsEnabled = isRecord(params) && params.enabled === undefined;
      if (cronChanged || enabling || keepsEnabled) {
        const current = await engine.getSchedule(scheduleName({ name: isRecord(params) ? params.name : undefined }));
        // An enabled schedule without a next tick would never fire again; any update revives it.
        const stalled = current.enabled && current.nextRunAt === null;
        if (cronChanged || enabling || stalled) {
          const spec = { cron: fields.cron ?? current.cron, timezone: fields.timezone ?? current.timezone };
          validateCron(spec);
          // Re-enabling starts from now: ticks that passed while disabled are not "missed".
          nextRunAt = cronChanged || !current.enabled || stalled ? next(spec) : undefined;
        }
      }
      const updated = withNextRuns(await engine.updateSchedule(p, nextRunAt));
      return changed(updated.schedule.name, updated);
    },
    'schedules.delete': async (params) => {
      const name = scheduleName(params);
      await engine.deleteSchedule(name);
      return changed(name, { deleted: 1 }, true);
    },
    'schedules.trigger': async (params) => {
      const name = scheduleName(params);
      // A triggered schedule records its last run, which the views show.
      return changed(name, await engine.triggerSchedule(name));
    },
    'schedules.enable': async (params) => {
      const name = scheduleName(params);
      const current = await engine.getSchedule(name);
      // An enabled schedule keeps its next tick, unless it has none: then it is recomputed, or it
      // would never fire again.
      const nextRunAt = current.enabled && current.nextRunAt !== null ? undefined : next(current);
      return changed(name, withNextRuns(await engine.updateSchedule({ name, enabled: true }, nextRunAt)));
    },
    'schedules.disable': async (params) => {
      const name = scheduleName(params);
      return changed(name, withNextRuns(await engine.updateSchedule({ name, enabled: false }, undefined)));
    },
  };
}
