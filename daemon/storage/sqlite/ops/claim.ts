/**
 * Claiming: which queues are eligible, how many each may give (concurrency, rate limit), and in
 * what order when a worker serves several queues.
 *
 * All of it runs in one write transaction. With one eligible queue the claim is a single
 * UPDATE … RETURNING. With several, each queue's next due jobs are peeked (an index walk each),
 * merged in claim order across queues, and each queue then gives exactly its share with one
 * bounded UPDATE; inside the transaction nothing can change between peek and claim.
 */
import type { Job } from '../../../../shared/types';
import { CLAIM_ANSWER_BUDGET, compareClaimOrder, type QueueSettings } from '..';
import type { ClaimRequest } from '../../backend';
import type { SqliteContext } from './context';

/** A rate limit's token bucket as of now. */
type Bucket = ReturnType<SqliteContext['policy']['refill']>;

interface Eligible {
  queue: QueueSettings;
  /** Most jobs this queue may give now. */
  room: number;
  bucket: Bucket | null;
}

function eligibleQueues(ctx: SqliteContext, names: string[], max: number, now: number): Eligible[] {
  const settings = names.length === 0 ? ctx.store.queues.all() : names.map((n) => ctx.store.queues.get(n)).filter((q) => q !== undefined);
  const eligible: Eligible[] = [];
  for (const queue of settings) {
    if (queue.paused) continue;
    let room = max;
    if (queue.concurrency !== null) room = Math.min(room, queue.concurrency - ctx.store.queues.count(queue.name, 'running'));
    let bucket: Bucket | null = null;
    if (queue.rateLimit !== null) {
      const stored = ctx.store.queues.rateState(queue.name);
      bucket = ctx.policy.refill(queue.rateLimit, stored, now);
      // The clock stepped back past the last refill. Refill counts from now, but the stored
      // time would stay in the future, and every later claim would find the bucket as empty as
      // it was, until the clock caught up again (an hour, for an hour's step). Store the bucket
      // as of now even if this claim takes nothing.
      if (stored.refilledAt !== null && stored.refilledAt > now) ctx.store.queues.setRateState(queue.name, bucket.tokens, now);
      room = Math.min(room, ctx.policy.available(bucket));
    }
    if (room > 0) eligible.push({ queue, room, bucket });
  }
  return eligible;
}

/** Inside a write transaction. */
export function claimJobs(ctx: SqliteContext, input: ClaimRequest): Job[] {
  const kinds = input.kinds;
  const now = ctx.now();
  const eligible = eligibleQueues(ctx, input.queues, input.max, now);
  if (eligible.length === 0) return [];

  let shares: Map<string, number>;
  if (eligible.length === 1) {
    const only = eligible[0];
    shares = new Map(only ? [[only.queue.name, only.room]] : []);
  } else {
    const candidates = eligible.flatMap((e) => ctx.store.claims.peek(e.queue.name, kinds, e.room, now));
    candidates.sort(compareClaimOrder);
    shares = new Map();
    for (const c of candidates.slice(0, input.max)) shares.set(c.queue, (shares.get(c.queue) ?? 0) + 1);
  }

  const claimed: Job[] = [];
  // One answer carries the jobs of every queue: they share the budget.
  let budget = CLAIM_ANSWER_BUDGET;
  for (const e of eligible) {
    const share = shares.get(e.queue.name) ?? 0;
    if (share === 0 || budget <= 0) continue;
    const { jobs, chars } = ctx.store.claims.claim(e.queue.name, kinds, share, input.workerId, now, budget);
    budget -= chars;
    if (e.bucket !== null && jobs.length > 0) ctx.store.queues.setRateState(e.queue.name, e.bucket.tokens - jobs.length, now);
    claimed.push(...jobs);
  }
  claimed.sort(compareClaimOrder);
  for (const job of claimed) ctx.events.job(job);
  return claimed;
}
