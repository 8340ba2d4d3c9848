/**
 * Cron expressions, parsed with cron-parser: 5 fields (minute precision) or 6 (seconds first),
 * evaluated in an IANA time zone; the aliases cron-parser knows (@hourly, @daily, ...) work too. Invalid input is refused with the parser's own reason and
 * `data.field` naming the field at fault, so `spool schedules create` can point at it.
 */
import { CronExpressionParser, type CronExpression } from 'cron-parser';
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

/**
 * The next `count` fire times strictly after `after` (epoch ms). Fewer if the expression ends.
 *
 * cron-parser 5 is not trusted on its own here: around the end of daylight saving time in zones
 * whose offset is not a whole hour (Australia/Lord_Howe, Pacific/Chatham) it can return a time at
 * or before its start, loop back over the repeated hour, or report that nothing follows. Each time
 * is therefore found by `firstFireTimeAfter`, which checks the parser's answer and searches on
 * when it is wrong.
 */
export function nextFireTimes(spec: CronSpec, after: number, count: number): number[] {
  const expression = parse(spec, after);
  const out: number[] = [];
  let from = after;
  while (out.length < count) {
    const next = firstFireTimeAfter(spec, expression, from);
    if (next === null) break;
    out.push(next);
    from = next;
  }
  return out;
}

/** The first fire time strictly after `after`, or null when there is none. */
export function nextFireTime(spec: CronSpec, after: number): number | null {
  return nextFireTimes(spec, after, 1)[0] ?? null;
}

const HOUR_MS = 3_600_000;
/** How far after a time the parser found nothing the search looks for a change of UTC offset. */
const OFFSET_SEARCH_MS = 48 * HOUR_MS;
/** Around a change of UTC offset, the span (either side) in which the parser's answers are checked. */
const CHANGE_MARGIN_MS = 2 * HOUR_MS;

function parse(spec: CronSpec, from: number): CronExpression {
  return CronExpressionParser.parse(spec.cron.trim(), { tz: spec.timezone, currentDate: new Date(from) });
}

/** The parser's first time after `from`, or null when it finds none (it gives up after a loop limit). */
function parserNext(spec: CronSpec, from: number): number | null {
  const expression = parse(spec, from);
  return expression.hasNext() ? expression.next().getTime() : null;
}

/**
 * The first fire time strictly after `after`. The parser goes wrong only near a change of the
 * zone's UTC offset, so its answer is taken as it is unless it is not after `after`, it is null,
 * or a change lies between `after` and the answer. Then every whole second (six fields) or
 * minute (five fields, aliases) within two hours either side of the change is matched against
 * the expression — matching converts an instant to the zone's wall clock correctly even where
 * the parser's stepping does not — and, when none matches, the parser is asked again from two
 * hours past the change.
 */
function firstFireTimeAfter(spec: CronSpec, expression: CronExpression, after: number): number | null {
  const answer = parserNext(spec, after);
  const trusted = answer !== null && answer > after;
  const change = trusted ? offsetChangeBetween(spec.timezone, after, answer) : offsetChangeBetween(spec.timezone, after, after + OFFSET_SEARCH_MS);
  if (change === null) return trusted ? answer : null;
  const step = spec.cron.trim().split(/\s+/).length === 6 ? 1000 : 60_000;
  const end = trusted ? Math.min(answer, change + CHANGE_MARGIN_MS) : change + CHANGE_MARGIN_MS;
  for (let at = Math.floor(Math.max(after, change - CHANGE_MARGIN_MS) / step) * step + step; at <= end; at += step) {
    if (expression.includesDate(new Date(at))) return at;
  }
  if (trusted) return answer;
  const later = parserNext(spec, end);
  return later !== null && later > end ? later : null;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at `at`, as the formatter writes it ("GMT+10:30"). */
function utcOffset(timezone: string, at: number): string {
  let format = offsetFormats.get(timezone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' });
    offsetFormats.set(timezone, format);
  }
  return format.formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
}

/** Between samples of the zone's offset: changes of one zone are months apart, never hours. */
const OFFSET_SAMPLE_MS = 6 * HOUR_MS;

/**
 * The first instant in (from, to] (to the second) with another UTC offset than `from`, or null.
 * Sampled every six hours (a yearly cron costs about 1,500 samples, a few milliseconds), then
 * narrowed down by halving.
 */
function offsetChangeBetween(timezone: string, from: number, to: number): number | null {
  const offset = utcOffset(timezone, from);
  let before = from;
  for (let at = Math.min(from + OFFSET_SAMPLE_MS, to); ; at = Math.min(at + OFFSET_SAMPLE_MS, to)) {
    if (utcOffset(timezone, at) !== offset) {
      let low = before;
      let high = at;
      while (high - low > 1000) {
        const mid = Math.floor((low + high) / 2);
        if (utcOffset(timezone, mid) === offset) low = mid;
        else high = mid;
      }
      return high;
    }
    if (at >= to) return null;
    before = at;
  }
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
