/**
 * Backoff as people type and read it, one syntax for the CLI and the jobs file:
 * `strategy[:base[:cap[:jitter]]]`, e.g. `exponential:1s:5m`, `linear:10s:2m:0.2`, `fixed:30s`.
 * Base and cap are durations (`parseDuration`'s syntax, so a bare number is refused there too);
 * jitter is a fraction from 0 to 1. Fields left out come from the queue's default backoff.
 */
import type { Backoff, BackoffStrategy } from '../protocol/types';
import { formatDuration, parseDuration } from './durations';
import { parsed, refused, type Parsed } from './parsed';

/**
 * The backoff of a queue created on first use (the daemon's QUEUE_DEFAULTS): 1 s, 2 s, 4 s, … up
 * to an hour, ±30%. Shared so that an editor can say what a backoff given in part becomes.
 */
export const NEW_QUEUE_BACKOFF: Readonly<Backoff> = { strategy: 'exponential', baseMs: 1000, capMs: 3_600_000, jitter: 0.3 };

/** The strategies, in the order messages list them. */
export const BACKOFF_STRATEGIES: readonly BackoffStrategy[] = ['exponential', 'linear', 'fixed'];

const USAGE = 'use strategy[:base[:cap[:jitter]]], e.g. exponential:1s:5m, linear:10s:2m:0.2 or fixed:30s';

/** The fields `text` gives, or what is wrong with it (naming the part at fault). */
export function parseBackoff(text: string): Parsed<Partial<Backoff>> {
  const [strategy, base, cap, jitter, ...rest] = text.trim().split(':');
  const known = BACKOFF_STRATEGIES.find((s) => s === strategy);
  if (known === undefined || rest.length > 0) return refused(`${USAGE} (strategies: ${BACKOFF_STRATEGIES.join(', ')})`);
  const backoff: Partial<Backoff> = { strategy: known };
  if (base) {
    const ms = parseDuration(base);
    if (!ms.ok) return refused(`base "${base}": ${ms.message}`);
    backoff.baseMs = ms.value;
  }
  if (cap) {
    const ms = parseDuration(cap);
    if (!ms.ok) return refused(`cap "${cap}": ${ms.message}`);
    backoff.capMs = ms.value;
  }
  if (jitter) {
    const j = Number(jitter);
    if (!Number.isFinite(j) || j < 0 || j > 1) return refused(`jitter "${jitter}": a fraction from 0 to 1, e.g. 0.2 for ±20%`);
    backoff.jitter = j;
  }
  return parsed(backoff);
}

/** A whole backoff in the syntax `parseBackoff` reads, so it can be copied into `--backoff`. */
export function formatBackoff(b: Backoff): string {
  return `${b.strategy}:${formatDuration(b.baseMs)}:${formatDuration(b.capMs)}:${b.jitter}`;
}

/**
 * The backoff a partial one is in effect once its missing parts come from `defaults` (the
 * queue's default backoff for a job or a queue's own, the daemon's for a new queue): "fixed:10s"
 * on a queue with exponential:1s:1h:0.3 waits as fixed:10s:1h:0.3, jitter included. For plan
 * output and editor hovers, so that what is written and what runs do not silently differ.
 */
export function effectiveBackoff(given: Partial<Backoff>, defaults: Backoff): Backoff {
  return {
    strategy: given.strategy ?? defaults.strategy,
    baseMs: given.baseMs ?? defaults.baseMs,
    capMs: given.capMs ?? defaults.capMs,
    jitter: given.jitter ?? defaults.jitter,
  };
}
