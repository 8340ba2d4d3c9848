/**
 * Fire times of a parsed cron expression in an IANA time zone, with Debian cron's rules at
 * daylight-saving changes (`man 8 cron`):
 *
 * - a change of less than 3 hours forward: a fixed-time job (no `*` at the start of its minute or
 *   hour field, not @hourly) whose time falls in the skipped span runs right after the change;
 * - a change of less than 3 hours back: such a job does not run again in the repeated span;
 * - wildcard jobs (`*` in the minute or hour field) follow the wall clock: nothing in a skipped
 *   span, twice in a repeated one;
 * - a change of 3 hours or more is a correction of the clock: the new time is used as it is.
 *
 * Written here rather than on cron-parser's iterator: cron-parser 5 steps through wall-clock time
 * and gets the changes wrong in ways that need a search to repair (after crossing a spring-forward
 * gap it can report that nothing follows, its issue #404; prev() skips a day at the same change,
 * #378; around the end of DST in Lord Howe it answered a time at or before its start, which
 * Spool's earlier wrapper had to search around), and it has no notion of fixed-time jobs at all. Here time is cut into spans of one UTC offset; within a
 * span, wall clock and instant differ by a constant, so the next matching wall-clock time is
 * found by calendar arithmetic, and only the changes between spans need the rules above.
 */
import type { CronExpression } from './parse';
import { firstOffsetChange, utcOffset } from './zone';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Debian cron treats a change of 3 hours or more as a correction of the clock, not DST. */
const DST_LIMIT_MS = 3 * HOUR_MS;
/**
 * How far ahead a fire time is looked for. Every expression that fires at all fires within 400
 * years (the Gregorian calendar repeats; "0 0 29 2 1" next fires up to 40 years on), and one that
 * never does ("0 0 30 2 *") is refused by the parser's caller before it gets here; the bound makes
 * sure nothing loops, whatever the input.
 */
const HORIZON_MS = 400 * 366 * DAY_MS;
/** At most this many offset changes are crossed looking for one fire time (400 years of DST is 800). */
const MAX_CHANGES = 1000;

/**
 * The first fire time strictly after `after` (epoch ms) in `timezone`, or null when there is none
 * within 400 years.
 */
export function nextFireAfter(cron: CronExpression, timezone: string, after: number): number | null {
  const fixed = !cron.followsWallClock;
  const wallLimit = after + HORIZON_MS;
  let from = Math.floor(after) + 1;
  // A change in the last 3 hours still decides what a fixed-time job may do: not run again while
  // an hour repeats, or run now for a time the change skipped.
  let minWall = -Infinity;
  const recent = fixed ? firstOffsetChange(timezone, from - DST_LIMIT_MS, from) : null;
  if (recent !== null) {
    const shift = utcOffset(timezone, recent) - utcOffset(timezone, recent - 1000);
    if (shift < 0 && -shift < DST_LIMIT_MS) minWall = recent + utcOffset(timezone, recent - 1000);
    if (shift > 0 && shift < DST_LIMIT_MS && recent >= from && skippedMatch(cron, timezone, recent)) return recent;
  }
  for (let crossed = 0; crossed <= MAX_CHANGES; crossed++) {
    const offset = utcOffset(timezone, from);
    const wall = nextMatchingWall(cron, Math.max(from + offset, minWall), wallLimit);
    if (wall === null) return null;
    const candidate = wall - offset;
    const change = firstOffsetChange(timezone, from, candidate);
    if (change === null) return candidate;
    // The offset changes before the candidate: from there on, wall-clock times are read with the
    // new offset.
    const shift = utcOffset(timezone, change) - offset;
    minWall = -Infinity;
    if (fixed && Math.abs(shift) < DST_LIMIT_MS) {
      if (shift > 0 && skippedMatch(cron, timezone, change)) return change;
      // Going back, the times up to the change's have run already; they are not run again.
      if (shift < 0) minWall = change + offset;
    }
    from = change;
  }
  return null;
}

/** Whether a wall-clock time skipped by the forward change at `change` matches. */
function skippedMatch(cron: CronExpression, timezone: string, change: number): boolean {
  const before = utcOffset(timezone, change - 1000);
  const after = utcOffset(timezone, change);
  return nextMatchingWall(cron, change + before, change + after - 1) !== null;
}

/**
 * The first wall-clock time at or after `from` that matches, as epoch ms of those fields read as
 * UTC, or null when there is none up to `limit`. Skips whole months, days and hours that cannot
 * match, so even "0 0 29 2 1" (a 29 February that is a Monday) costs a few thousand steps.
 */
export function nextMatchingWall(cron: CronExpression, from: number, limit: number): number | null {
  const step = cron.hasSeconds ? 1000 : MINUTE_MS;
  let t = Math.ceil(from / step) * step;
  const d = new Date(0);
  while (t <= limit) {
    d.setTime(t);
    const year = d.getUTCFullYear();
    const month = d.getUTCMonth();
    const day = d.getUTCDate();
    const hour = d.getUTCHours();
    const minute = d.getUTCMinutes();
    if (!cron.month[month + 1]) {
      t = Date.UTC(year, month + 1, 1);
      continue;
    }
    if (!dayMatches(cron, day, d.getUTCDay())) {
      t = Date.UTC(year, month, day + 1);
      continue;
    }
    const h = nextSet(cron.hour, hour);
    if (h !== hour) {
      t = h === -1 ? Date.UTC(year, month, day + 1) : Date.UTC(year, month, day, h);
      continue;
    }
    const m = nextSet(cron.minute, minute);
    if (m !== minute) {
      t = m === -1 ? Date.UTC(year, month, day, hour + 1) : Date.UTC(year, month, day, hour, m);
      continue;
    }
    const s = nextSet(cron.second, d.getUTCSeconds());
    if (s === -1) {
      t = Date.UTC(year, month, day, hour, minute + 1);
      continue;
    }
    return Date.UTC(year, month, day, hour, minute, s);
  }
  return null;
}

function dayMatches(cron: CronExpression, day: number, weekday: number): boolean {
  const dom = cron.dayOfMonth[day] === true;
  const dow = cron.dayOfWeek[weekday] === true;
  return cron.daysMatchBoth ? dom && dow : dom || dow;
}

/** The first index at or after `from` that is set, or -1. */
function nextSet(values: readonly boolean[], from: number): number {
  for (let i = from; i < values.length; i++) if (values[i]) return i;
  return -1;
}

/**
 * Whether the expression can fire at all: some allowed day of some allowed month exists (29
 * February counts; the day-of-week field, when it must match too, matches that date in some
 * year). Vixie cron's rule for the day fields decides: when either starts with `*` both must
 * match, so "0 0 30 2 *" never fires while "0 0 30 2 1" fires on Mondays in February.
 */
export function canFire(cron: CronExpression): boolean {
  if (!cron.daysMatchBoth) return true;
  const longest = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  for (let month = 1; month <= 12; month++) {
    if (!cron.month[month]) continue;
    for (let day = 1; day <= longest[month]; day++) if (cron.dayOfMonth[day]) return cron.dayOfWeek.some((v) => v);
  }
  return false;
}
