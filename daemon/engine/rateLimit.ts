/**
 * The per-queue token bucket: `burst` tokens at most, refilled at `perSecond`; each claimed job
 * takes one. The state (tokens, refilled at) is stored in the queues table and updated inside
 * the claim's transaction, so two processes claiming from one file share one bucket.
 */
import type { RateLimit } from '../../shared/protocol/types';

export interface Bucket {
  tokens: number;
  refilledAt: number;
}

/** The bucket as of `now`. A bucket never used (tokens null) starts full. */
export function refill(limit: RateLimit, stored: { tokens: number | null; refilledAt: number | null }, now: number): Bucket {
  if (stored.tokens === null || stored.refilledAt === null) return { tokens: limit.burst, refilledAt: now };
  // A clock that stepped back (refilled at in the future) must neither drain the bucket nor add
  // to it: the bucket counts from now, and the claim stores it so (see claim.ts).
  const elapsed = Math.max(0, now - stored.refilledAt);
  return { tokens: Math.min(limit.burst, stored.tokens + (elapsed / 1000) * limit.perSecond), refilledAt: now };
}

/** Whole jobs the bucket allows now. */
export function available(bucket: Bucket): number {
  // A hair of tolerance: 0.1 + 0.2 style float error must not withhold a token that is due.
  return Math.floor(bucket.tokens + 1e-9);
}

/** When the next whole token will be there, for the daemon's wake-up timer. */
export function nextTokenAt(limit: RateLimit, bucket: Bucket): number {
  const missing = 1 - (bucket.tokens - Math.floor(bucket.tokens + 1e-9));
  return bucket.refilledAt + Math.ceil((missing * 1000) / limit.perSecond);
}
