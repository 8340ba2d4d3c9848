/**
 * Times as people read them, one way in the CLI, the extension and the language server:
 * relative times (`3s ago`, `in 5m`, `just now`), local timestamps for details views, and a
 * schedule's fire times in a time zone. Pure: the caller passes the clock (`now`).
 */
import { formatDuration } from '../durations';

/**
 * `3s ago`, `in 5m`, `2h ago`, `just now`; `-` for no time. One unit, rounded: a relative time
 * is read at a glance and moves with the clock, so `1h20m ago` says more than anyone looks for.
 */
export function relativeTime(at: number | null, now: number): string {
  if (at === null) return '-';
  const diff = at - now;
  if (Math.abs(diff) < 1000) return 'just now';
  const amount = formatDuration(diff, 1);
  return diff > 0 ? `in ${amount}` : `${amount} ago`;
}

/** Local ISO-like time with the offset, for details views: `2026-05-01 09:00:00 +02:00`; `-` for no time. */
export function formatTimestamp(at: number | null): string {
  if (at === null) return '-';
  const d = new Date(at);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const tz = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${tz}`;
}

/** The formatters of fireTime, by zone and options: building one is slow next to using it. */
const fireFormats = new Map<string, Intl.DateTimeFormat>();

/** How a fire time is written: with seconds (a six-field cron), with the zone's abbreviation. */
export interface FireTimeOptions {
  seconds?: boolean;
  /** The zone's abbreviation after the time (`CET`, `CEST`), which tells summer time from winter time; true unless the caller names the zone once for several times. */
  zoneName?: boolean;
}

/**
 * A schedule's fire time as the wall clock of `timezone` shows it: `Tue 24 Nov 2026 03:00 CET`,
 * with seconds for a six-field cron (`Tue 24 Nov 2026 03:00:20 UTC`). Throws a RangeError for a
 * zone the runtime does not know, as Intl does.
 */
export function fireTime(at: number, timezone: string, options: FireTimeOptions = {}): string {
  const seconds = options.seconds ?? false;
  const zoneName = options.zoneName ?? true;
  const key = `${timezone}\n${seconds}\n${zoneName}`;
  let format = fireFormats.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      ...(seconds ? { second: '2-digit' } : {}),
      hourCycle: 'h23',
      ...(zoneName ? { timeZoneName: 'short' } : {}),
    });
    fireFormats.set(key, format);
  }
  return format.format(at).replace(/,/g, '');
}

/** Whether `timezone`'s wall clock shows another date or time at `at` than `other`'s (the local zone when absent). */
export function wallClockDiffers(at: number, timezone: string, other?: string): boolean {
  const wall = (zone?: string): string =>
    new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', ...(zone ? { timeZone: zone } : {}) }).format(at);
  try {
    return wall(timezone) !== wall(other);
  } catch {
    return false;
  }
}

/**
 * Several fire times in the schedule's zone, named once, and in the local zone too when its wall
 * clock shows other times: `Sun 11 Jan 2026 03:00, Mon 12 Jan 2026 03:00 (Europe/Paris); Sat 10
 * Jan 2026 21:00, Sun 11 Jan 2026 21:00 (local, America/New_York)`.
 */
export function fireTimesText(times: readonly number[], timezone: string, localZone: string, seconds = false): string {
  const list = (zone: string): string => times.map((t) => fireTime(t, zone, { seconds, zoneName: false })).join(', ');
  const inZone = `${list(timezone)} (${timezone})`;
  if (times.every((t) => !wallClockDiffers(t, timezone, localZone))) return inZone;
  return `${inZone}; ${list(localZone)} (local, ${localZone})`;
}
