/** Times as a person reads them in a table: `3s ago`, `in 5m`, `1h20m`. */

/** `1.2s`, `45s`, `3m`, `1h20m`, `2d3h`: two units at most, for a glance. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(abs)}ms`;
  if (abs < 10_000) return `${(abs / 1000).toFixed(1).replace(/\.0$/, '')}s`;
  const s = Math.round(abs / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 && m < 10 ? `${m}m${s % 60}s` : `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d}d${h % 24}h` : `${d}d`;
}

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
