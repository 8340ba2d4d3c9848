/**
 * IANA time zones through the runtime's Intl data: whether a name is known, the UTC offset at an
 * instant, and where the offset changes. Pure (no I/O); formatters are cached per zone because
 * building one costs far more than using it.
 */
import type { CronProblem } from './parse';
import { clip } from './parse';
import { errorMessage } from '../../protocol/errors';

/** The time zone a schedule uses when none is given. */
export const DEFAULT_TIMEZONE = 'UTC';

const TIMEZONE_ALLOWED = 'an IANA time zone name such as "UTC" or "Europe/Paris"';

/** Null when the runtime knows the zone, else the problem (field `timezone`). */
export function timezoneProblem(timezone: string): CronProblem | null {
  try {
    formatter(timezone);
    return null;
  } catch (error) {
    const reason = errorMessage(error);
    return {
      field: 'timezone',
      message: `Unknown time zone "${clip(timezone)}" (${reason.replace(/\.+$/, '')}). Use an IANA name such as "Europe/Paris" or "UTC".`,
      allowed: TIMEZONE_ALLOWED,
      start: 0,
      end: timezone.length,
    };
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let format = formatters.get(timezone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(timezone, format);
  }
  return format;
}

const SECOND_MS = 1000;

/**
 * The zone's offset from UTC at `at`, in ms: the wall clock there, read as if it were UTC, minus
 * the instant (both to the whole second, which is what zone data is precise to).
 */
export function utcOffset(timezone: string, at: number): number {
  const whole = Math.floor(at / SECOND_MS) * SECOND_MS;
  let year = 0;
  let month = 1;
  let day = 1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let bc = false;
  for (const part of formatter(timezone).formatToParts(whole)) {
    const n = Number(part.value);
    switch (part.type) {
      case 'year': year = n; break;
      case 'month': month = n; break;
      case 'day': day = n; break;
      case 'hour': hour = n; break;
      case 'minute': minute = n; break;
      case 'second': second = n; break;
      case 'era': bc = part.value.startsWith('B'); break;
      default: break;
    }
  }
  const wall = new Date(0);
  wall.setUTCFullYear(bc ? 1 - year : year, month - 1, day);
  wall.setUTCHours(hour, minute, second, 0);
  return wall.getTime() - whole;
}

/**
 * How far apart offsets are sampled when looking for a change. Changes of one zone are weeks or
 * months apart (two within a day that cancel out would go unseen, and no zone has had them); a
 * day keeps a yearly schedule to about 370 samples.
 */
const SAMPLE_MS = 24 * 3_600_000;

/**
 * The first instant in (from, to] whose offset differs from the offset at `from`, to the second,
 * or null when there is none. Sampled, then narrowed down by halving.
 */
export function firstOffsetChange(timezone: string, from: number, to: number): number | null {
  const offset = utcOffset(timezone, from);
  let before = from;
  for (let at = Math.min(from + SAMPLE_MS, to); before < to; at = Math.min(at + SAMPLE_MS, to)) {
    if (utcOffset(timezone, at) !== offset) {
      let low = Math.floor(before / SECOND_MS) * SECOND_MS;
      let high = Math.floor(at / SECOND_MS) * SECOND_MS;
      while (high - low > SECOND_MS) {
        const mid = low + Math.floor((high - low) / 2 / SECOND_MS) * SECOND_MS;
        if (utcOffset(timezone, mid) === offset) low = mid;
        else high = mid;
      }
      return high > from ? high : null;
    }
    before = at;
  }
  return null;
}
