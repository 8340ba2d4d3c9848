/**
 * Cron, once for every program: parsing and validation (problems as values that name the field
 * and say what it takes), a description in words, and the next fire times in an IANA time zone
 * following Debian cron across daylight-saving changes. Used by the daemon (validation, next
 * ticks), the CLI and the extension (words, checks before sending) and the language server.
 * Pure: no I/O, no clock — every "from" instant is passed in.
 */
import { invalidParams } from '../protocol/errors';
import { describeExpression as describeParsed } from './cron/describe';
import { canFire, nextFireAfter } from './cron/next';
import { clip, parseCron, type CronExpression, type CronProblem } from './cron/parse';
import { DEFAULT_TIMEZONE, timezoneProblem } from './cron/zone';

export { CRON_ALLOWED, CRON_MACROS, parseCron, type CronExpression, type CronFieldName, type CronParse, type CronProblem } from './cron/parse';
export { DEFAULT_TIMEZONE, timezoneProblem } from './cron/zone';

/** A cron expression and the time zone it is read in (UTC when absent). */
export interface CronSpec {
  cron: string;
  timezone?: string;
}

/**
 * The first problem with a schedule's cron and time zone, or null when it can fire: a field out
 * of range or malformed, an unknown zone, or an expression that matches no date ("0 0 30 2 *").
 */
export function cronProblem(spec: CronSpec): CronProblem | null {
  const parsed = parseCron(spec.cron);
  if (!parsed.ok) return parsed.problem;
  const zone = timezoneProblem(spec.timezone ?? DEFAULT_TIMEZONE);
  if (zone !== null) return zone;
  if (!canFire(parsed.cron)) {
    return {
      field: 'cron',
      message: `The cron expression "${clip(parsed.cron.text)}" never fires: no month it allows has the day of the month it names.`,
      allowed: 'a day of the month that exists in one of the months (29 February counts)',
      start: 0,
      end: spec.cron.length,
    };
  }
  return null;
}

/** Throws InvalidParams (`data.field` "cron" or "timezone") unless the schedule can fire. */
export function validateCron(spec: CronSpec): void {
  const problem = cronProblem(spec);
  if (problem !== null) throw invalidParams(problem.field, problem.message, problem.allowed);
}

/** The parsed expression, or InvalidParams for a malformed one or an unknown zone. */
function parsedOrThrow(spec: CronSpec): CronExpression {
  const parsed = parseCron(spec.cron);
  if (!parsed.ok) throw invalidParams('cron', parsed.problem.message, parsed.problem.allowed);
  const zone = timezoneProblem(spec.timezone ?? DEFAULT_TIMEZONE);
  if (zone !== null) throw invalidParams('timezone', zone.message, zone.allowed);
  return parsed.cron;
}

/**
 * The next `count` fire times strictly after `after` (epoch ms), in order; none for an expression
 * that never fires ("0 0 30 2 *"), at once. Throws InvalidParams for an invalid expression or
 * zone, so a stored schedule that no longer parses is noticed.
 */
export function nextFireTimes(spec: CronSpec, after: number, count: number): number[] {
  const cron = parsedOrThrow(spec);
  if (!canFire(cron)) return [];
  const timezone = spec.timezone ?? DEFAULT_TIMEZONE;
  const out: number[] = [];
  let from = after;
  while (out.length < count) {
    const next = nextFireAfter(cron, timezone, from);
    if (next === null) break;
    out.push(next);
    from = next;
  }
  return out;
}

/** The first fire time strictly after `after` (epoch ms), or null when there is none. */
export function nextFireTime(spec: CronSpec, after: number): number | null {
  return nextFireTimes(spec, after, 1)[0] ?? null;
}

/**
 * The expression in words ("at 03:00 every day", "every 15 minutes, Monday to Friday"); the
 * expression as written when it does not parse, so a view can always show something.
 */
export function describeCron(cron: string): string {
  const parsed = parseCron(cron);
  return parsed.ok ? describeParsed(parsed.cron) : cron.trim();
}
