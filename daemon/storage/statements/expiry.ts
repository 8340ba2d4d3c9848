/**
 * Statements of job expiry (see ./index.ts for the protocol): the waiting jobs that did not start
 * before their `expire_at`, ending one of them, and the next expiry (the daemon's wake-up time).
 * Only jobs that never started carry `expire_at`: the claim that starts a job clears it.
 */
import type { Job } from '../../../shared/protocol/types';
import type { JobMove } from './jobs';

export type ExpirySql = {
  /**
   * Up to `limit` waiting (blocked, queued or retrying) jobs whose `expire_at` is at or before
   * `now`, soonest first, locked for the upkeep (PostgreSQL: SKIP LOCKED, so two daemons' upkeeps
   * take different jobs).
   */
  jobExpiredWaiting(p: { now: number; limit: number }): Job[];
  /**
   * A waiting job past its expiry → dead, finished now, `reason` its last error, its expiry
   * cleared; the job, or undefined if it is no longer waiting.
   */
  jobExpire(p: JobMove & { reason: string }): Job | undefined;
  /** The earliest `expire_at` after `now` of a waiting job; null if none. */
  jobNextExpiry(now: number): number | null;
};
