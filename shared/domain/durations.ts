/**
 * Durations as people type and read them, one syntax for the CLI, the extension and the jobs
 * file: a number with a unit, `500ms`, `30s`, `5m`, `1h`, `2d`, `1w`, decimals (`1.5s`) and
 * combinations without spaces (`1h30m`). `0` alone is zero. A bare number is refused: `30`
 * could be seconds or milliseconds, and a wrong guess is a job that waits a thousand times too
 * long or not at all (see docs/cli.md, "Durations, rates and backoff").
 */
import { parsed, refused, type Parsed } from './parsed';

/** Milliseconds per unit, in the order messages list them. */
export const DURATION_UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

const UNIT_LIST = 'ms, s, m, h, d or w';
const EXAMPLES = 'like 500ms, 30s, 5m, 1h30m or 2d';
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/y;

/** `text` as whole milliseconds, or what is wrong with it. */
export function parseDuration(text: string): Parsed<number> {
  const s = text.trim();
  if (s === '0') return parsed(0);
  if (/^-\d/.test(s)) return refused('it cannot be negative');
  if (/^\d+(?:\.\d+)?$/.test(s)) return refused(`a number needs a unit (${UNIT_LIST}), e.g. ${s}s or ${s}m`);
  let total = 0;
  let matched = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const m = PART.exec(s);
    if (!m) break;
    total += Number(m[1]) * (DURATION_UNITS[m[2] ?? ''] ?? NaN);
    matched = PART.lastIndex;
  }
  if (s.length === 0 || matched !== s.length || !Number.isFinite(total)) return refused(`use a number with a unit (${UNIT_LIST}), ${EXAMPLES}`);
  const ms = Math.round(total);
  if (!Number.isSafeInteger(ms)) return refused('it is too long to count in milliseconds');
  return parsed(ms);
}

/**
 * A duration for a glance, in the syntax `parseDuration` reads. With `units` 2 (the default)
 * it keeps two units at most and floors the second: `250ms`, `2.5s`, `45s`, `2m5s`, `1h20m`,
 * `1d2h`. With `units` 1 it rounds to the largest unit and never goes below whole seconds
 * (`0s`, `45s`, `2m`, `3h`, `5d`): what a tree line in the extension has room for.
 */
export function formatDuration(ms: number, units: 1 | 2 = 2): string {
  const abs = Math.abs(ms);
  if (units === 1) {
    if (abs < 60_000) return `${Math.max(0, Math.round(abs / 1000))}s`;
    if (abs < 3_600_000) return `${Math.round(abs / 60_000)}m`;
    if (abs < 86_400_000) return `${Math.round(abs / 3_600_000)}h`;
    return `${Math.round(abs / 86_400_000)}d`;
  }
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
