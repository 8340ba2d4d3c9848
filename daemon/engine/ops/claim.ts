/**
 * Claiming, written once for every store: which queues are eligible, how many each may give
 * (pause, every queue's or its own; concurrency counted by weight, rate limit), each queue's share when a worker serves
 * several, the claimer's capacity and the answer's size budget. All of it runs in one write
 * transaction; the store's statements (../../storage/statements/claim.ts) do the SQL, which
 * differs between the stores (SQLite holds the write lock; PostgreSQL locks limited queues' rows
 * and skips jobs another claimer holds).
 *
 * A worker without capacity claiming from one queue without limits or groups claims in one
 * statement (claimSimple); otherwise the claim starts with claimStart. With one eligible queue
 * the claim is one statement. With several, each queue's next due jobs
 * are peeked, merged in claim order across queues, and each queue then gives its share with one
 * bounded statement. A grouped queue gives its share with its groups in turn (./groups.ts).
 */
import type { ClaimedJob, Job } from '../../../shared/protocol/types';
import { sql, type Op } from '../../storage/statements';
import { CLAIM_ANSWER_BUDGET, compareClaimOrder, type ClaimCandidate, type ClaimJobFields, type KindFilter } from '../../storage/statements/claim';
import type { StoredQueue } from '../../storage/statements/queues';
import { available, refill, type Bucket } from '../rateLimit';
import type { OpContext } from './context';
import { dependenciesOfClaimed } from './dependencies';
import * as history from './historySteps';
import { claimGroups } from './groups';

/** A claim as the engine runs it: the claimer's kinds already turned into a filter. */
export interface ClaimRequest {
  workerId: string;
  /** Queues to claim from; empty for every queue. */
  queues: string[];
  /** Most jobs to claim, across all queues. */
  max: number;
  kinds: KindFilter;
  /**
   * Whether to try the claim in one statement (claimSimple) first; the engine stops trying for a
   * while for a worker whose claims were found not simple (../simpleClaims.ts), which would
   * otherwise pay the try on every claim. Absent: try.
   */
  trySimple?: boolean;
  /** Told when the try found the claim not simple. */
  notSimple?: () => void;
  /**
   * The fields of each job the claimer reads (`jobs.claim`'s `fields`): the store then reads back
   * only those and what the engine needs (ClaimJobFields). Absent: whole jobs.
   */
  fields?: ClaimJobFields;
}

interface Eligible {
  queue: StoredQueue;
  /** Most jobs this queue may give now (the claim's max, its rate limit, its weight room). */
  room: number;
  /** Most weight it may give now (its concurrency and the claimer's capacity); null when nothing bounds it. */
  weightRoom: number | null;
  bucket: Bucket | null;
}

function smaller(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

/**
 * Claims up to `max` due jobs of the eligible queues in claim order, leased to the worker, inside
 * one write transaction: what a limited queue or the claimer's capacity allows is read and drawn
 * on before the transaction ends.
 */
export function* claim(c: OpContext, request: ClaimRequest): Op<ClaimedJob[]> {
  const now = c.now();
  // The common case (a worker without capacity, one queue without limits or groups) is one
  // statement: it says whether the case holds, and claims if it does. A claim that names several
  // queues is seldom simple, and goes the long way without asking.
  const trying = request.queues.length <= 1 && request.trySimple !== false;
  const simple = trying ? yield* sql('claimSimple', { workerId: request.workerId, queues: request.queues, kinds: request.kinds, now, limit: request.max, budget: CLAIM_ANSWER_BUDGET, ...fieldsOf(request) }) : null;
  if (trying && simple === null) request.notSimple?.();
  return yield* claimed(c, simple === null ? yield* claimLongWay(request, now) : simple.jobs, now);
}

function fieldsOf(request: ClaimRequest): { fields?: ClaimJobFields } {
  return request.fields === undefined ? {} : { fields: request.fields };
}

/** The jobs of a claim, as the claim's answer: recorded as changed and started, with their dependencies. */
function* claimed(c: OpContext, jobs: Job[], now: number): Op<ClaimedJob[]> {
  const claimed = jobs.sort(compareClaimOrder);
  for (const job of claimed) c.changes.job(job);
  history.started(c, claimed, now);
  // A job that depends on others gets them, with their results, in the same answer.
  const dependencies = yield* dependenciesOfClaimed(claimed);
  if (dependencies.size === 0) return claimed;
  return claimed.map((job) => {
    const of = dependencies.get(job.id);
    return of === undefined ? job : { ...job, dependencies: of };
  });
}

/** A claim that is not simple: the eligible queues and what each may give, then each queue's share. */
function* claimLongWay(request: ClaimRequest, now: number): Op<Job[]> {
  // While every queue is paused (spool pause --all), claimStart gives no queue; nor while the
  // claimer's capacity is used up.
  const start = yield* sql('claimStart', { workerId: request.workerId, queues: request.queues, kinds: request.kinds, now });
  let capacity = start.capacity;
  const queues = start.queues;
  const eligible: Eligible[] = [];
  for (const { settings: queue, runningWeight, rate } of queues) {
    let room = request.max;
    // The concurrency limit counts weights: a running job of weight 4 holds four of its slots.
    const weightRoom = smaller(queue.concurrency === null ? null : queue.concurrency - runningWeight, capacity);
    // Every job weighs at least 1, so the weight room bounds the number of jobs too.
    if (weightRoom !== null) room = Math.min(room, weightRoom);
    let bucket: Bucket | null = null;
    if (queue.rateLimit !== null && rate !== null) {
      bucket = refill(queue.rateLimit, rate, now);
      // The clock stepped back past the last refill. Refill counts from now, but the stored
      // time would stay in the future, and every later claim would find the bucket as empty as
      // it was, until the clock caught up again (an hour, for an hour's step). Store the bucket
      // as of now even if this claim takes nothing.
      if (rate.refilledAt !== null && rate.refilledAt > now) yield* sql('queueSetRateState', { name: queue.name, tokens: bucket.tokens, refilledAt: now });
      room = Math.min(room, available(bucket));
    }
    if (room > 0) eligible.push({ queue, room, weightRoom, bucket });
  }
  if (eligible.length === 0) return [];

  // With one queue, its claim statement applies the weight room itself. With several, the
  // shares are taken here from the peeked candidates in claim order, weights counted against
  // each queue's room and the claimer's capacity.
  const only = eligible.length === 1 ? eligible[0] : undefined;
  const shares = only ? new Map([[only.queue.name, only.room]]) : yield* sharesOf(eligible, request, now, capacity);
  const peeked = only === undefined;

  let claimed: Job[] = [];
  // One answer carries the jobs of every queue: they share the budget.
  let budget = CLAIM_ANSWER_BUDGET;
  for (const e of eligible) {
    const share = shares.get(e.queue.name) ?? 0;
    if (share === 0 || budget <= 0) continue;
    const room = smaller(e.weightRoom, capacity);
    if (room !== null && room <= 0) continue;
    const { jobs, chars } = e.queue.grouped
      ? yield* claimGroups({ queue: e.queue, workerId: request.workerId, kinds: request.kinds, now, limit: share, room, budget })
      : yield* sql('claimJobs', { queue: e.queue.name, kinds: request.kinds, limit: share, workerId: request.workerId, now, budget, room, peeked, ...fieldsOf(request) });
    budget -= chars;
    if (capacity !== null) for (const job of jobs) capacity -= job.weight;
    if (e.bucket !== null && jobs.length > 0) yield* sql('queueSetRateState', { name: e.queue.name, tokens: e.bucket.tokens - jobs.length, refilledAt: now });
    if (only) claimed = jobs;
    else claimed.push(...jobs);
  }
  return claimed;
}

/**
 * Each queue's share of a claim across several queues: the candidates in claim order, each taken
 * while its queue's weight room and the claimer's capacity hold it. A queue whose next job does
 * not fit gives nothing more (its order is kept: a heavy job is not overtaken in its own queue);
 * a job that does not fit the claimer's capacity ends the claim.
 */
function* sharesOf(eligible: Eligible[], request: ClaimRequest, now: number, capacityLeft: number | null): Op<Map<string, number>> {
  const candidates: ClaimCandidate[] = yield* sql('claimPeek', { queues: eligible.map((e) => ({ name: e.queue.name, room: e.room })), kinds: request.kinds, now });
  candidates.sort(compareClaimOrder);
  const roomLeft = new Map(eligible.map((e) => [e.queue.name, e.weightRoom]));
  const closed = new Set<string>();
  let capacity = capacityLeft;
  let taken = 0;
  const shares = new Map<string, number>();
  for (const candidate of candidates) {
    if (taken === request.max) break;
    if (closed.has(candidate.queue)) continue;
    const room = roomLeft.get(candidate.queue) ?? null;
    if (room !== null && candidate.weight > room) {
      closed.add(candidate.queue);
      continue;
    }
    if (capacity !== null && candidate.weight > capacity) break;
    if (room !== null) roomLeft.set(candidate.queue, room - candidate.weight);
    if (capacity !== null) capacity -= candidate.weight;
    shares.set(candidate.queue, (shares.get(candidate.queue) ?? 0) + 1);
    taken += 1;
  }
  return shares;
}
