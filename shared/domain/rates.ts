/**
 * Rate limits as people type and read them, one syntax for the CLI, the extension and the jobs
 * file: jobs per unit of time, `10/s`, `600/m`, `100/h`, `0.5/s`, optionally with the burst
 * (how many may start at once after a quiet spell), `10/s burst 20` or, without spaces for a
 * shell, `10/s:20`. `off` or `none` removes the limit. A bare number is refused, as for
 * durations: `10` could be per second or per minute (see docs/cli.md).
 */
import type { RateLimit } from '../protocol/types';
import { parsed, refused, type Parsed } from './parsed';

const PER_UNIT: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600 };
const SYNTAX = /^(\d+(?:\.\d+)?)\s*\/\s*(s|m|h)(?:(?:\s+burst\s+|:)(\d+))?$/;
const USAGE = 'use jobs per unit of time (s, m or h), like 10/s, 600/m or 10/s burst 20, or off for no limit';

/** The burst when none is given: one second's worth, at least 1 (as the daemon defaults it). */
export function defaultBurst(perSecond: number): number {
  return Math.max(1, Math.ceil(perSecond));
}

/** A rate limit, `null` for `off`/`none` (no limit), or what is wrong with `text`. */
export function parseRate(text: string): Parsed<RateLimit | null> {
  const t = text.trim();
  if (t === 'off' || t === 'none') return parsed(null);
  if (/^\d+(?:\.\d+)?(?::\d+)?$/.test(t)) return refused(`a rate needs a unit of time (s, m or h), e.g. ${t.replace(/(:|$)/, '/s$1')}; ${USAGE}`);
  const m = SYNTAX.exec(t);
  if (!m) return refused(USAGE);
  const perSecond = Number(m[1]) / (PER_UNIT[m[2] ?? ''] ?? NaN);
  if (!(perSecond > 0)) return refused('it must be above zero; use off to remove the limit');
  const burst = m[3] !== undefined ? Number(m[3]) : defaultBurst(perSecond);
  if (burst < 1) return refused('the burst must be 1 or more');
  return parsed({ perSecond, burst });
}

/**
 * A rate limit in the syntax `parseRate` reads: per second when that is a whole number or at
 * least 1, else per minute or per hour when that makes it whole (`0.5/s` prints as `30/m`).
 * The burst is shown unless `burst` is false (a table column with room for the rate alone).
 */
export function formatRate(rate: RateLimit, burst = true): string {
  const p = rate.perSecond;
  const per = p >= 1 || whole(p) ? `${p}/s` : whole(p * 60) ? `${Math.round(p * 60)}/m` : whole(p * 3600) ? `${Math.round(p * 3600)}/h` : `${p}/s`;
  return burst ? `${per} burst ${rate.burst}` : per;
}

/** Whole up to floating-point noise: 0.1 per second times 60 is 6.000000000000001. */
function whole(n: number): boolean {
  return Math.abs(n - Math.round(n)) < 1e-9;
}
