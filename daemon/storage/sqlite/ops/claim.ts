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
  /** Most jobs this queue may give now (the claim's max, its rate limit). */
  room: number;
  /** Most weight it may give now (its concurrency and the claimer's capacity); null when nothing bounds it. */
  weightRoom: number | null;
  bucket: Bucket | null;
}

function smaller(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

/** `capacityLeft`: the weight the claimer may still take, null when it declared no capacity. */
function eligibleQueues(ctx: SqliteContext, names: string[], max: number, now: number, capacityLeft: number | null): Eligible[] {
  const settings = names.length === 0 ? ctx.store.queues.all() : names.map((n) => ctx.store.queues.get(n)).filter((q) => q !== undefined);
  const eligible: Eligible[] = [];
  for (const queue of settings) {
    if (queue.paused) continue;
    let room = max;
    // The concurrency limit counts weights: a running job of weight 4 holds four of its slots.
    const weightRoom = smaller(queue.concurrency === null ? null : queue.concurrency - ctx.store.queues.runningWeight(queue.name), capacityLeft);
    // Every job weighs at least 1, so the weight room bounds the number of jobs too.
    if (weightRoom !== null) room = Math.min(room, weightRoom);
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
    if (room > 0) eligible.push({ queue, room, weightRoom, bucket });
  }
  return eligible;
}

/** Inside a write transaction. */
export function claimJobs(ctx: SqliteContext, input: ClaimRequest): Job[] {
  const kinds = input.kinds;
  const now = ctx.now();
  const capacityLeft = ctx.store.workers.capacityLeft(input.workerId) ?? null;
  if (capacityLeft !== null && capacityLeft <= 0) return [];
  const eligible = eligibleQueues(ctx, input.queues, input.max, now, capacityLeft);
  if (eligible.length === 0) return [];

  // With one queue, its claim statement applies the weight room itself. With several, the
  // shares are taken here from the peeked candidates in claim order, weights counted against
  // each queue's room and the claimer's capacity; each queue's claim then takes exactly its
  // share, the same prefix of its order (nothing changes between peek and claim in the
  // transaction), with no weight bound left to apply.
  let shares: Map<string, { jobs: number; weightRoom: number | null }>;
  if (eligible.length === 1) {
    const only = eligible[0];
    shares = new Map(only ? [[only.queue.name, { jobs: only.room, weightRoom: only.weightRoom }]] : []);
  } else {
    shares = sharesOf(ctx, eligible, kinds, input.max, now, capacityLeft);
  }

  const claimed: Job[] = [];
  // One answer carries the jobs of every queue: they share the budget.
  let budget = CLAIM_ANSWER_BUDGET;
  for (const e of eligible) {
    const share = shares.get(e.queue.name);
    if (share === undefined || share.jobs === 0 || budget <= 0) continue;
    const { jobs, chars } = ctx.store.claims.claim(e.queue.name, kinds, share.jobs, input.workerId, now, budget, share.weightRoom);
    budget -= chars;
    if (e.bucket !== null && jobs.length > 0) ctx.store.queues.setRateState(e.queue.name, e.bucket.tokens - jobs.length, now);
    claimed.push(...jobs);
  }
  claimed.sort(compareClaimOrder);
  for (const job of claimed) ctx.events.job(job);
  return claimed;
}

/**
 * Each queue's share of a claim across several queues: the candidates in claim order, each taken
 * while its queue's weight room and the claimer's capacity hold it. A queue whose next job does
 * not fit gives nothing more (its order is kept: a heavy job is not overtaken in its own queue);
 * a job that does not fit the claimer's capacity ends the claim.
 */
function sharesOf(
  ctx: SqliteContext,
  eligible: Eligible[],
  kinds: ClaimRequest['kinds'],
  max: number,
  now: number,
  capacityLeft: number | null,
): Map<string, { jobs: number; weightRoom: null }> {
  const candidates = eligible.flatMap((e) => ctx.store.claims.peek(e.queue.name, kinds, e.room, now));
  candidates.sort(compareClaimOrder);
  const roomLeft = new Map(eligible.map((e) => [e.queue.name, e.weightRoom]));
  const closed = new Set<string>();
  let capacity = capacityLeft;
  let taken = 0;
  const shares = new Map<string, { jobs: number; weightRoom: null }>();
  for (const c of candidates) {
    if (taken === max) break;
    if (closed.has(c.queue)) continue;
    const room = roomLeft.get(c.queue) ?? null;
    if (room !== null && c.weight > room) {
      closed.add(c.queue);
      continue;
    }
    if (capacity !== null && c.weight > capacity) break;
    if (room !== null) roomLeft.set(c.queue, room - c.weight);
    if (capacity !== null) capacity -= c.weight;
    const share = shares.get(c.queue);
    if (share) share.jobs += 1;
    else shares.set(c.queue, { jobs: 1, weightRoom: null });
    taken += 1;
  }
  return shares;
}
