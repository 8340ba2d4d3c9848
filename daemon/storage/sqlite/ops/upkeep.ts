/**
 * Upkeep: the reaper, start-up recovery and the next wake-up time (stats, retention and the
 * counter check are daemon/engine/ops/upkeep.ts).
 */
import type { SqliteContext } from './context';
import { expireLease, recoverJob } from './attempts';

/** One batch of expired leases; the engine repeats it while batches come back full. */
export function reapBatch(ctx: SqliteContext): number {
  const expired = ctx.store.jobs.expiredLeases(ctx.now(), ctx.policy.batchSize);
  for (const job of expired) expireLease(ctx, job);
  return expired.length;
}

export function recoverBatch(ctx: SqliteContext, workerIds: string[], aliveUntil: number | undefined): number {
  let recovered = 0;
  for (const job of ctx.store.jobs.runningOf(workerIds)) if (recoverJob(ctx, job, aliveUntil)) recovered += 1;
  return recovered;
}

/**
 * The earliest future moment something becomes due: a delayed or retrying job of a queue that
 * is not paused, a lease expiry, a schedule, or a rate-limited queue's next token while it has
 * due jobs waiting for one.
 */
export function nextWakeAt(ctx: SqliteContext): number | null {
  const now = ctx.now();
  let next: number | null = null;
  const consider = (t: number | null): void => {
    if (t !== null && (next === null || t < next)) next = t;
  };
  for (const q of ctx.store.queues.all()) {
    if (q.paused) continue;
    consider(ctx.store.upkeep.nextDue(q.name, 'queued', now));
    consider(ctx.store.upkeep.nextDue(q.name, 'retrying', now));
    if (q.rateLimit !== null) {
      const bucket = ctx.policy.refill(q.rateLimit, ctx.store.queues.rateState(q.name), now);
      const counts = ctx.store.queues.counts(q.name);
      if (bucket.tokens < 1 && counts.queued + counts.retrying > 0) consider(ctx.policy.nextTokenAt(q.rateLimit, bucket));
    }
  }
  consider(ctx.store.upkeep.nextLeaseExpiry());
  consider(ctx.store.schedules.nextDue());
  return next;
}
