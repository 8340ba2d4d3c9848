/**
 * Upkeep: stats from the counters, retention, the next wake-up time, and the counter check.
 */
import type { QueueStats, Stats } from '../../../../shared/protocol';
import { JOB_STATES, type JobState } from '../../../../shared/types';
import { emptyCounts } from '..';
import type { SqliteContext } from './context';

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** O(queues): counters, each queue's delayed count (kept between reads, see DelayedCounts), and the stat buckets. */
export function stats(ctx: SqliteContext): Stats {
  const now = ctx.now();
  const counts = ctx.store.queues.allCounts();
  const totals = emptyCounts();
  const queues: QueueStats[] = ctx.store.queues.all().map((q) => {
    const c = counts.get(q.name) ?? emptyCounts();
    for (const state of JOB_STATES) totals[state] += c[state];
    return { name: q.name, paused: q.paused, counts: c, delayed: ctx.store.queues.delayed(q.name, now) };
  });
  const minute = ctx.store.runs.finishedSince(now, MINUTE);
  const hour = ctx.store.runs.finishedSince(now, HOUR);
  return {
    queues,
    totals,
    completedLastMinute: minute.completed,
    failedLastMinute: minute.failed,
    completedLastHour: hour.completed,
    failedLastHour: hour.failed,
    at: now,
  };
}

/** One batch of retention for one queue. */
export function retentionBatch(ctx: SqliteContext, queue: string, retentionMs: number, limit: number): number {
  const cutoff = ctx.now() - retentionMs;
  // Ids are UUIDv7 of the creation time, and a job is created before it finishes.
  const deleted = ctx.store.upkeep.retention(queue, cutoff, ctx.policy.firstIdAt(cutoff), limit);
  if (deleted > 0) ctx.events.queue(queue);
  return deleted;
}

export function pruneStatBuckets(ctx: SqliteContext): void {
  ctx.store.runs.pruneBuckets(ctx.now() - 2 * HOUR);
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

export function verifyCounters(ctx: SqliteContext): { ok: boolean; mismatches: { queue: string; state: JobState; counted: number; actual: number }[] } {
  const actual = new Map<string, number>();
  for (const row of ctx.store.queues.recount()) actual.set(`${row.queue}\u0000${row.state}`, row.count);
  const mismatches: { queue: string; state: JobState; counted: number; actual: number }[] = [];
  const seen = new Set<string>();
  for (const [queue, counts] of ctx.store.queues.allCounts()) {
    for (const state of JOB_STATES) {
      const key = `${queue}\u0000${state}`;
      seen.add(key);
      const a = actual.get(key) ?? 0;
      if (counts[state] !== a) mismatches.push({ queue, state, counted: counts[state], actual: a });
    }
  }
  for (const [key, count] of actual) {
    if (seen.has(key)) continue;
    const [queue = '', state = 'queued'] = key.split('\u0000');
    const known = JOB_STATES.find((s) => s === state);
    if (known) mismatches.push({ queue, state: known, counted: 0, actual: count });
  }
  return { ok: mismatches.length === 0, mismatches };
}
