/** Times as a person reads them in a table: `3s ago`, `in 5m`, `1h20m`. */
import { formatDuration } from '../../shared/domain/durations';

/** Durations print in the syntax they are typed in, the same in the extension (shared/domain). */
export { formatDuration };

/** `3s ago`, `in 5m`, `just now`; `-` for null. */
export function formatRelative(at: number | null, now = Date.now()): string {
  if (at === null) return '-';
  const diff = at - now;
  if (Math.abs(diff) < 1000) return 'just now';
  return diff < 0 ? `${formatDuration(-diff)} ago` : `in ${formatDuration(diff)}`;
}

/** Local ISO-like time with the offset, for details views: `2026-05-01 09:00:00 +02:00`. */
export function formatTimestamp(at: number | null): string {
  if (at === null) return '-';
  const d = new Date(at);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const tz = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${tz}`;
}
