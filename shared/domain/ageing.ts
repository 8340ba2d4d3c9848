/**
 * Priority ageing as people type and read it, one syntax for the protocol, the CLI, the
 * extension and the jobs file: `N per DURATION`, e.g. `1 per 10m` (a waiting job's priority
 * counts one higher for every 10 minutes it has waited since it became due). `off` or `none`
 * turns it off. The duration is in the syntax of ./durations.ts.
 */
import { LIMITS } from '../protocol/limits';
import { parseDuration } from './durations';
import { parsed, refused, type Parsed } from './parsed';

/** Ageing as the daemon keeps it: `step` priority for every `everyMs` waited. */
export interface Ageing {
  step: number;
  everyMs: number;
}

/** The shortest interval: the upkeep raises priorities at most once a second. */
export const AGEING_MIN_EVERY_MS = 1000;
/** The longest interval: 30 days. */
export const AGEING_MAX_EVERY_MS = 30 * 86_400_000;
/** The largest step: the whole priority range at once. */
export const AGEING_MAX_STEP = LIMITS.maxPriority - LIMITS.minPriority;

/** The accepted form, for messages and docs. */
export const AGEING_FORM = `N per DURATION, like 1 per 10m or 5 per 1h (N from 1 to ${AGEING_MAX_STEP}, the duration from 1s to 30d), or off`;

const SYNTAX = /^(\d+)\s+per\s+(\S+)$/;

/** Ageing, `null` for `off`/`none`, or what is wrong with `text`. */
export function parseAgeing(text: string): Parsed<Ageing | null> {
  const t = text.trim();
  if (t === 'off' || t === 'none') return parsed(null);
  const m = SYNTAX.exec(t);
  if (!m) return refused(`use ${AGEING_FORM}`);
  const step = Number(m[1]);
  if (!Number.isSafeInteger(step) || step < 1 || step > AGEING_MAX_STEP) return refused(`the step must be from 1 to ${AGEING_MAX_STEP}; use ${AGEING_FORM}`);
  const every = parseDuration(m[2] ?? '');
  if (!every.ok) return refused(`the interval is not a duration: ${every.message}; use ${AGEING_FORM}`);
  if (every.value < AGEING_MIN_EVERY_MS || every.value > AGEING_MAX_EVERY_MS) return refused(`the interval must be from 1s to 30d; use ${AGEING_FORM}`);
  return parsed({ step, everyMs: every.value });
}

/**
 * Ageing in the syntax `parseAgeing` reads, exactly (`1 per 10m`, `2 per 90s`): the interval in
 * the largest unit that divides it, so that reading it back gives the same interval.
 */
export function formatAgeing(ageing: Ageing): string {
  const units: [string, number][] = [['w', 604_800_000], ['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]];
  const unit = units.find(([, ms]) => ageing.everyMs % ms === 0);
  return `${ageing.step} per ${unit === undefined ? `${ageing.everyMs}ms` : `${ageing.everyMs / unit[1]}${unit[0]}`}`;
}

/**
 * The priority a waiting job counts as at `now`: its own, raised by `step` for every whole
 * `everyMs` since `dueAt` (its run time), never above the highest priority. The stores compute
 * the same in SQL (queueAgeJobs); this is the rule they follow.
 */
export function agedPriority(priority: number, dueAt: number, now: number, ageing: Ageing): number {
  const steps = Math.max(0, Math.floor((now - dueAt) / ageing.everyMs));
  return Math.min(LIMITS.maxPriority, priority + steps * ageing.step);
}
