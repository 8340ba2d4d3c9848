/**
 * `spool enqueue --at`: when a job may start, read as a person means it and said back to them.
 *
 * A time without a zone is read in the local zone (as `date` would), unlike schedules, whose
 * cron defaults to UTC; so the confirmation names the zone that was used. A time already past is
 * refused rather than quietly run at once, except within a small tolerance: a time typed for
 * "now" has passed by the time the command runs.
 */
import { CliError } from '../errors';
import { formatDuration } from '../format/time';
import { parseTime } from './values';

/** How far in the past `--at` may be and still be taken (as "start at once"). */
export const AT_TOLERANCE_MS = 60_000;

/** A start time and how it was read, for the confirmation. */
export interface StartTime {
  at: number;
  /** The wall-clock time in the zone used: `2026-11-25 09:00 Europe/Paris (local)`, `… UTC`, `… +02:00`. */
  shown: string;
  /** True when the time is slightly past (within the tolerance): the job may start at once. */
  passed: boolean;
}

/** An explicit zone at the end of a date and time: `Z`, `+02:00`, `-0500`, `+02`. */
const ZONE = /[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*([zZ]|[+-]\d{2}(?::?\d{2})?)$/;
/** A date alone, which Date.parse would read as UTC midnight; read as local midnight instead. */
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export function parseStartTime(text: string, what: string, now = Date.now()): StartTime {
  const trimmed = text.trim();
  const at = parseTime(DATE_ONLY.test(trimmed) ? `${trimmed}T00:00` : trimmed, what, now);
  const zone = ZONE.exec(trimmed)?.[1];
  const shown = zone === undefined || trimmed.startsWith('+') ? `${wallClock(at, localZone())} ${localZone()} (local)` : inOffset(at, zone);
  if (at < now - AT_TOLERANCE_MS) {
    const local = zone === undefined && !trimmed.startsWith('+') ? ' A time without a zone is local time; add Z for UTC or an offset such as +02:00.' : '';
    throw new CliError(`${what} ${text} is in the past: it reads as ${shown}, ${formatDuration(now - at)} ago. Give a later time, or +30m for a time from now; leave out ${what} to run at once.${local}`);
  }
  return { at, shown, passed: at < now };
}

/** The zone this process reads local times in (TZ, else the system's). */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** `2026-11-25 09:00` (with `:ss` when the seconds are not zero) in an IANA zone. */
function wallClock(at: number, timeZone: string): string {
  const f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  const seconds = p['second'] === '00' ? '' : `:${p['second']}`;
  return `${p['year']}-${p['month']}-${p['day']} ${p['hour']}:${p['minute']}${seconds}`;
}

/** The wall-clock time at the offset the user wrote, named as written (`UTC` for Z). */
function inOffset(at: number, zone: string): string {
  if (zone === 'Z' || zone === 'z') return `${wallClock(at, 'UTC')} UTC`;
  const digits = zone.replace(':', '');
  const hours = Number(digits.slice(1, 3));
  const minutes = digits.length > 3 ? Number(digits.slice(3, 5)) : 0;
  const sign = digits.startsWith('-') ? -1 : 1;
  const offsetMs = sign * (hours * 60 + minutes) * 60_000;
  const label = `${digits[0]}${digits.slice(1, 3)}:${digits.length > 3 ? digits.slice(3, 5) : '00'}`;
  // The wall clock at that offset is the UTC wall clock of the instant moved by the offset.
  return `${wallClock(at + offsetMs, 'UTC')} ${label}`;
}
