/**
 * Durations and backoff as people type them: `500ms`, `30s`, `5m`, `1h`, `2d`, `1w`, and
 * combinations such as `1h30m`. A bare number is refused (is `30` seconds or milliseconds?),
 * except `0`.
 */
import type { Backoff, BackoffStrategy } from '../../shared/types';
import { MAX_KILL_GRACE_MS } from '../../shared/daemon-options';
import { CliError } from '../errors';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/y;

/** Milliseconds in `text`; `what` names the option in the error. */
export function parseDuration(text: string, what: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  if (/^-\d/.test(s)) throw new CliError(`Invalid duration "${text}" for ${what}: it cannot be negative.`);
  let total = 0;
  PART.lastIndex = 0;
  let matched = 0;
  while (PART.lastIndex < s.length) {
    const m = PART.exec(s);
    if (!m) break;
    total += Number(m[1]) * (UNITS[m[2] ?? ''] ?? NaN);
    matched = PART.lastIndex;
  }
  if (s.length === 0 || matched !== s.length || !Number.isFinite(total)) {
    throw new CliError(`Invalid duration "${text}" for ${what}: use a number with a unit, like 500ms, 30s, 5m, 1h or 2d.`);
  }
  return Math.round(total);
}

/** `--kill-after` (of `spool daemon` and `spool work`): how long SIGTERM gets before SIGKILL, at most an hour. */
export function parseKillAfter(text: string): number {
  const ms = parseDuration(text, '--kill-after');
  if (ms > MAX_KILL_GRACE_MS) throw new CliError(`--kill-after ${text} is too long: at most ${MAX_KILL_GRACE_MS / 3_600_000}h.`);
  return ms;
}

const STRATEGIES: readonly BackoffStrategy[] = ['exponential', 'linear', 'fixed'];

/**
 * `strategy[:base[:cap[:jitter]]]`, e.g. `exponential:1s:5m`, `linear:10s:2m:0.2`, `fixed:30s`.
 * Fields left out come from the queue's default backoff.
 */
export function parseBackoff(text: string, what = '--backoff'): Partial<Backoff> {
  const [strategy, base, cap, jitter, ...rest] = text.split(':');
  const usage = 'use strategy[:base[:cap[:jitter]]], e.g. exponential:1s:5m, linear:10s:2m:0.2 or fixed:30s';
  if (strategy === undefined || !isStrategy(strategy) || rest.length > 0) {
    throw new CliError(`Invalid backoff "${text}" for ${what}: ${usage} (strategies: ${STRATEGIES.join(', ')}).`);
  }
  const backoff: Partial<Backoff> = { strategy };
  if (base) backoff.baseMs = parseDuration(base, `${what} base`);
  if (cap) backoff.capMs = parseDuration(cap, `${what} cap`);
  if (jitter) {
    const j = Number(jitter);
    if (!Number.isFinite(j) || j < 0 || j > 1) throw new CliError(`Invalid backoff jitter "${jitter}" for ${what}: a fraction from 0 to 1, e.g. 0.2 for ±20%.`);
    backoff.jitter = j;
  }
  return backoff;
}

function isStrategy(s: string): s is BackoffStrategy {
  return STRATEGIES.some((known) => known === s);
}
