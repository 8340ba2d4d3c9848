/**
 * Cron expressions, parsed with cron-parser: 5 fields (minute precision) or 6 (seconds first),
 * evaluated in an IANA time zone; the aliases cron-parser knows (@hourly, @daily, ...) work too. Invalid input is refused with the parser's own reason and
 * `data.field` naming the field at fault, so `spool schedules create` can point at it.
 */
import { CronExpressionParser } from 'cron-parser';
import { invalidParams } from '../../shared/errors';

export interface CronSpec {
  cron: string;
  timezone: string;
}

/** Throws InvalidParams (field `cron` or `timezone`) unless the expression can fire. */
export function validateCron(spec: CronSpec): void {
  checkTimezone(spec.timezone);
  const fields = spec.cron.trim().split(/\s+/).filter((f) => f.length > 0);
  const alias = fields.length === 1 && fields[0].startsWith('@');
  if (!alias && fields.length !== 5 && fields.length !== 6) {
    throw invalidParams(
      'cron',
      `Invalid cron expression "${clip(spec.cron)}": it has ${fields.length} field(s); use 5 (minute hour day-of-month month day-of-week) or 6 (with seconds first).`,
      '5 or 6 fields',
    );
  }
  let next: number | null;
  try {
    next = nextFireTimes(spec, Date.now(), 1)[0] ?? null;
  } catch (error) {
    // The parser's own sentences end with a full stop, or not.
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\.+$/, '');
    throw invalidParams('cron', `Invalid cron expression "${clip(spec.cron)}": ${reason}.`, 'a 5- or 6-field cron expression');
  }
  if (next === null) throw invalidParams('cron', `The cron expression "${clip(spec.cron)}" never fires.`);
}

/** The next `count` fire times strictly after `after` (epoch ms). Fewer if the expression ends. */
export function nextFireTimes(spec: CronSpec, after: number, count: number): number[] {
  const expression = CronExpressionParser.parse(spec.cron.trim(), { tz: spec.timezone, currentDate: new Date(after) });
  const out: number[] = [];
  while (out.length < count && expression.hasNext()) out.push(expression.next().getTime());
  return out;
}

/** The first fire time strictly after `after`, or null when there is none. */
export function nextFireTime(spec: CronSpec, after: number): number | null {
  return nextFireTimes(spec, after, 1)[0] ?? null;
}

function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalidParams('timezone', `Unknown time zone "${clip(timezone)}" (${reason}). Use an IANA name such as "Europe/Paris" or "UTC".`);
  }
}

function clip(text: string): string {
  return text.length > 100 ? text.slice(0, 100) + '…' : text;
}
