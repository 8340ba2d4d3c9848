/**
 * The wait before attempt n+1 after attempt n failed.
 */
import type { Backoff } from '../../shared/protocol/types';

/**
 * Exponential base·2^(n-1), linear base·n, fixed base; capped at capMs, then moved by up to
 * ±jitter (a fraction) at random so that jobs that failed together do not retry together.
 * `attempt` is the attempt that just failed (1-based); `random` returns [0, 1).
 */
export function backoffDelay(backoff: Backoff, attempt: number, random: () => number): number {
  const n = Math.max(1, attempt);
  let delay: number;
  switch (backoff.strategy) {
    case 'exponential':
      // 2^(n-1) overflows to Infinity for large n; the cap takes care of it.
      delay = backoff.baseMs * 2 ** (n - 1);
      break;
    case 'linear':
      delay = backoff.baseMs * n;
      break;
    case 'fixed':
      delay = backoff.baseMs;
      break;
  }
  delay = Math.min(delay, backoff.capMs);
  const spread = delay * backoff.jitter * (2 * random() - 1);
  return Math.max(0, Math.round(delay + spread));
}
