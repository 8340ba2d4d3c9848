/**
 * The next wake-up time, as SQLite finds it (the reaper, recovery, stats, retention and the
 * counter check are written once, in daemon/engine/ops/).
 */
import type { SqliteContext } from './context';

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
